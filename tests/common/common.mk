# Unit tests of what the tools share (tools/common): the containers, and
# the grammar of numbers, sizes and lists.

COMMON_TESTS := $(BUILD)/tests/test_containers $(BUILD)/tests/test_numbers

$(COMMON_TESTS): $(BUILD)/tests/test_%: tests/common/test_%.c $(COMMON_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(COMMON_CFLAGS) $(LDFLAGS) -o $@ $< -lcmocka
