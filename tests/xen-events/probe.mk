# Targets added to Xen's own xen/Makefile (make -f Makefile -f probe.mk) by
# xen-events: the generated headers a compile needs (the first steps of
# Xen's $(TARGET) recipe, the same in 4.17 to 4.22), the objects of a
# directory, and the objects that directories build (Rules.mk's obj-y).

xt-prepare: outputmakefile $(filter asm-generic,$(PHONY)) FORCE
	$(Q)$(MAKE) $(build)=tools
	$(Q)$(MAKE) $(build)=. include/xen/compile.h
	$(Q)$(MAKE) $(build)=include all
	$(Q)$(MAKE) $(build)=arch/$(SRCARCH) include
	$(Q)$(MAKE) $(build)=. arch/$(SRCARCH)/include/asm/asm-offsets.h

# XT_DIRS: directories, XT_OBJS_<dir>: the objects each is to build.
xt-build: $(addprefix xt-dir/,$(XT_DIRS))
xt-dir/%: FORCE
	$(Q)$(MAKE) $(build)=$* $(XT_OBJS_$*)

# XT_DIRS: print "DIR: OBJECTS" for each.
xt-list: FORCE
	$(Q)$(foreach d,$(XT_DIRS),$(MAKE) $(build)=$(d) -f $(XT_HERE)/probe.mk xt-objs;)
xt-objs: FORCE
	@echo "$(obj): $(obj-y) $(obj-bin-y)"
