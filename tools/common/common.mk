# What several of our tools share and none installs: small headers, each
# the one home of its piece (the tournament tree of the merges, decimal
# formatting, the hash table, the growable array, and the grammar of the
# numbers and lists that options take).  Private: no installed header
# includes them.

COMMON_SRC    := tools/common
COMMON_HDRS   := $(addprefix $(COMMON_SRC)/,tournament.h decimal.h hashtab.h \
                                          array.h numbers.h)
COMMON_CFLAGS := -I$(COMMON_SRC)
