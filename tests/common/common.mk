# Unit tests of the tools' containers (tools/common).

COMMON_TESTS := $(BUILD)/tests/test_containers

$(BUILD)/tests/test_containers: tests/common/test_containers.c $(COMMON_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) $(COMMON_CFLAGS) $(LDFLAGS) -o $@ $< -lcmocka
