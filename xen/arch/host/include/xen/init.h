#include <xen/config.h>
