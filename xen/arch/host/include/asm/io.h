/* Host environment: nothing; trace.c includes it as Xen's does. */
