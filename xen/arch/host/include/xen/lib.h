/* Host environment: Xen's library helpers and console. */
#ifndef __HOST_XEN_LIB_H__
#define __HOST_XEN_LIB_H__

#include <string.h>
#include <xen/config.h>
#include <xen/types.h>
#include <asm/system.h>

#define ARRAY_SIZE(a)        (sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d)   (((n) + (d) - 1) / (d))
#define BUILD_BUG_ON(cond)   _Static_assert(!(cond), #cond)

#define min(x, y) ({ __typeof__(x) x_ = (x); __typeof__(y) y_ = (y); \
                     (void)(&x_ == &y_); x_ < y_ ? x_ : y_; })
#define max(x, y) ({ __typeof__(x) x_ = (x); __typeof__(y) y_ = (y); \
                     (void)(&x_ == &y_); x_ > y_ ? x_ : y_; })
#define min_t(t, x, y) ({ t x_ = (x); t y_ = (y); x_ < y_ ? x_ : y_; })

#define ACCESS_ONCE(x)       (*(volatile __typeof__(x) *)&(x))

void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define printk_once(fmt, args...)               \
({                                              \
    static bool once_;                          \
    if ( unlikely(!once_) )                     \
    {                                           \
        once_ = true;                           \
        printk(fmt, ## args);                   \
    }                                           \
})

/* Debug-build checks of the hypervisor's own invariants. */
void host_assert_failed(const char *what, const char *file, int line)
    __attribute__((noreturn));
#define ASSERT(p) \
    do { if ( unlikely(!(p)) ) host_assert_failed(#p, __FILE__, __LINE__); } while ( 0 )
#define BUG_ON(p)  ASSERT(!(p))

#endif /* __HOST_XEN_LIB_H__ */
