/*
 * xen-sim's xenstore (store.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "store.h"
#include "workload.h"

#define NAME_MAX_BYTES  256     /* xl takes longer; the tests need not */
#define MAX_DOMAINS     16
#define MAX_WATCHERS    64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    unsigned int domid;
    uint8_t uuid[16];
    char name[NAME_MAX_BYTES];
} domains[MAX_DOMAINS];
static unsigned int nr_domains;

static struct {
    int sock, fd;               /* fd -1: a free entry */
} watchers[MAX_WATCHERS];

void store_init(void)
{
    unsigned int i;

    nr_domains = wl_nr_domains() < MAX_DOMAINS ? wl_nr_domains()
                                               : MAX_DOMAINS;
    for ( i = 0; i < nr_domains; i++ )
        snprintf(domains[i].name, sizeof(domains[i].name), "%s",
                 wl_domain(i, &domains[i].domid, domains[i].uuid));
    for ( i = 0; i < MAX_WATCHERS; i++ )
        watchers[i].fd = -1;
}

/* Caller holds lock. */
static int find_domain(unsigned int domid)
{
    unsigned int i;

    for ( i = 0; i < nr_domains; i++ )
        if ( domains[i].domid == domid )
            return i;
    return -1;
}

/* @s at @buf: 0, or -E2BIG if it does not fit in @size. */
static int put(char *buf, size_t size, size_t *len, const char *s, size_t n)
{
    if ( *len + n > size )
        return -E2BIG;
    memcpy(buf + *len, s, n);
    *len += n;
    return 0;
}

/* "/vm/UUID", as xl writes a domain's vm node. */
static void vm_path(char *text, const uint8_t uuid[16])
{
    unsigned int i;

    text += sprintf(text, "/vm/");
    for ( i = 0; i < 16; i++ )
        text += sprintf(text, "%s%02x", i == 4 || i == 6 || i == 8 ||
                                        i == 10 ? "-" : "", uuid[i]);
}

/* A domain's node @leaf ("" for the domain's own). Caller holds lock. */
static int domain_node(unsigned int d, const char *leaf, int list,
                       char *buf, size_t size, size_t *len)
{
    char text[64];

    if ( !*leaf )
        return list ? put(buf, size, len, "name\0vm\0domid", 14) : 0;
    if ( list )
        return strcmp(leaf, "name") && strcmp(leaf, "vm") &&
               strcmp(leaf, "domid") ? -ENOENT : 0;
    if ( !strcmp(leaf, "name") )
        return put(buf, size, len, domains[d].name, strlen(domains[d].name));
    if ( !strcmp(leaf, "domid") )
        snprintf(text, sizeof(text), "%u", domains[d].domid);
    else if ( !strcmp(leaf, "vm") )
        vm_path(text, domains[d].uuid);
    else
        return -ENOENT;
    return put(buf, size, len, text, strlen(text));
}

/* Caller holds lock. */
static int get(const char *path, int list, char *buf, size_t size,
               size_t *len)
{
    static const char base[] = "/local/domain";
    unsigned int domid, i;
    int d, at = 0, rc;

    if ( !strcmp(path, base) )
    {
        if ( !list )
            return 0;
        for ( i = 0; i < nr_domains; i++ )
        {
            char id[16];

            snprintf(id, sizeof(id), "%u", domains[i].domid);
            if ( (rc = put(buf, size, len, id, strlen(id) + 1)) )
                return rc;
        }
        return 0;
    }
    if ( strncmp(path, base, sizeof(base) - 1) ||
         sscanf(path + sizeof(base) - 1, "/%u%n", &domid, &at) != 1 ||
         (d = find_domain(domid)) < 0 )
        return -ENOENT;
    path += sizeof(base) - 1 + at;
    if ( *path && *path++ != '/' )
        return -ENOENT;
    return domain_node(d, path, list, buf, size, len);
}

int store_get(const char *path, int list, char *buf, size_t size,
              size_t *len)
{
    int rc;

    *len = 0;
    pthread_mutex_lock(&lock);
    rc = get(path, list, buf, size, len);
    pthread_mutex_unlock(&lock);
    /* A list's last name ends with a NUL, as the others: it goes. */
    if ( !rc && list && *len )
        (*len)--;
    return rc;
}

int store_watch(int sock, int *fd)
{
    unsigned int i;
    int rc = -ENOSPC;

    pthread_mutex_lock(&lock);
    for ( i = 0; i < MAX_WATCHERS; i++ )
        if ( watchers[i].fd >= 0 && watchers[i].sock == sock )
        {
            *fd = watchers[i].fd;
            rc = 0;
            goto out;
        }
    for ( i = 0; i < MAX_WATCHERS; i++ )
        if ( watchers[i].fd < 0 )
        {
            rc = (watchers[i].fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
                 < 0 ? -errno : 0;
            watchers[i].sock = sock;
            *fd = watchers[i].fd;
            break;
        }
out:
    pthread_mutex_unlock(&lock);
    return rc;
}

void store_forget(int sock)
{
    unsigned int i;

    pthread_mutex_lock(&lock);
    for ( i = 0; i < MAX_WATCHERS; i++ )
        if ( watchers[i].fd >= 0 && watchers[i].sock == sock )
        {
            close(watchers[i].fd);
            watchers[i].fd = -1;
        }
    pthread_mutex_unlock(&lock);
}

int store_rename(unsigned int domid, const char *name)
{
    uint64_t one = 1;
    unsigned int i;
    int d;

    pthread_mutex_lock(&lock);
    if ( (d = find_domain(domid)) >= 0 )
    {
        snprintf(domains[d].name, sizeof(domains[d].name), "%s", name);
        /* A write fails only when the counter is full: they will look. */
        for ( i = 0; i < MAX_WATCHERS; i++ )
            if ( watchers[i].fd >= 0 )
                (void)!write(watchers[i].fd, &one, sizeof(one));
    }
    pthread_mutex_unlock(&lock);
    return d < 0 ? -ENOENT : 0;
}
