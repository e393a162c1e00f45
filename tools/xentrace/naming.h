/*
 * xentrace: the domains' names and UUIDs, from xenstore, for the file's
 * domain records (xtfile.h, "Domains").
 */
#ifndef NAMING_H
#define NAMING_H

#include <stdbool.h>

#include "xtfile.h"

struct naming;

/*
 * Connect to xenstored's socket and list the domains it knows, watching
 * for new ones and for renames.  NULL if no xenstored answers on its
 * socket (none runs yet, or it runs in a stub domain): the file then
 * names no domain, and the readers show numbers, as upstream's files.
 */
struct naming *naming_open(void);
void naming_close(struct naming *nm);

/* The domains listed, *@n of them: the naming owns them. */
const struct xt_domain *naming_domains(const struct naming *nm,
                                       unsigned int *n);

/*
 * If a watch fired since: list the domains again, and keep those that
 * are new or renamed for naming_next().  Costs one poll(2) when nothing
 * changed.  A xenstored that goes away is said in one line, and the
 * domains are named no further.
 */
void naming_poll(struct naming *nm);

/* The oldest change not told yet, or NULL; naming_told() drops it. */
const struct xt_domain *naming_next(const struct naming *nm);
void naming_told(struct naming *nm);

#endif /* NAMING_H */
