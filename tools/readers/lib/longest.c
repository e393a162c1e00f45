/*
 * longest: the N longest intervals of a kind (longest.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "longest.h"

int longest_init(struct longest *l, unsigned int cap)
{
    *l = (struct longest){ .cap = cap };
    if ( !(l->heap = calloc(cap ? cap : 1, sizeof(*l->heap))) )
    {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void longest_free(struct longest *l)
{
    free(l->heap);
    *l = (struct longest){ 0 };
}

/* Does @x come before @y: longer, else earlier, else by vCPU and pCPU? */
static bool before(const struct longest_item *x, const struct longest_item *y)
{
    if ( x->ticks != y->ticks )
        return x->ticks > y->ticks;
    if ( x->start != y->start )
        return x->start < y->start;
    if ( x->domvcpu != y->domvcpu )
        return x->domvcpu < y->domvcpu;
    return x->pcpu < y->pcpu;
}

static void swap(struct longest_item *x, struct longest_item *y)
{
    struct longest_item t = *x;

    *x = *y;
    *y = t;
}

/* Move heap[i] down to its place among the first @n: the last in front. */
static void sift_down(struct longest_item *h, unsigned int n, unsigned int i)
{
    for ( ;; )
    {
        unsigned int least = i, c = 2 * i + 1;

        if ( c < n && before(&h[least], &h[c]) )
            least = c;
        if ( c + 1 < n && before(&h[least], &h[c + 1]) )
            least = c + 1;
        if ( least == i )
            return;
        swap(&h[i], &h[least]);
        i = least;
    }
}

void longest_add(struct longest *l, const struct longest_item *it)
{
    struct longest_item *h = l->heap;
    unsigned int i;

    if ( l->sorted )
        return;
    if ( l->n < l->cap )
    {
        /* Up from the bottom while it comes after its parent. */
        for ( i = l->n++, h[i] = *it; i && before(&h[(i - 1) / 2], &h[i]);
              i = (i - 1) / 2 )
            swap(&h[i], &h[(i - 1) / 2]);
        return;
    }
    if ( !l->cap || !before(it, &h[0]) )
        return;
    h[0] = *it;
    sift_down(h, l->n, 0);
}

const struct longest_item *longest_sorted(struct longest *l, unsigned int *n)
{
    unsigned int end;

    /* Heapsort: the last in front goes to the back, each in turn. */
    for ( end = l->n; !l->sorted && end > 1; end-- )
    {
        swap(&l->heap[0], &l->heap[end - 1]);
        sift_down(l->heap, end - 1, 0);
    }
    l->sorted = true;
    *n = l->n;
    return l->heap;
}
