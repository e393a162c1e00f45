/* Host environment: no arch trace helpers (Xen's x86 has none either). */
