# What several of our tools share and none installs: small headers, each
# the one home of its piece (the tournament tree of the merges, decimal
# formatting).  Private: no installed header includes them.

COMMON_SRC    := tools/common
COMMON_HDRS   := $(COMMON_SRC)/tournament.h $(COMMON_SRC)/decimal.h
COMMON_CFLAGS := -I$(COMMON_SRC)
