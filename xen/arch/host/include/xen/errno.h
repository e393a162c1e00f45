/* Host environment: Xen's errno values are Linux's. */
#include <errno.h>
