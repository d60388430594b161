# An upstream-style Makefile for ninja's own program (the build.ninja that configure.py
# writes, without its browse and test targets): libninja.a + ninja.cc. Used by
# benches/build_ninja.sh and tests/build/real_ninja.rs on Debian's ninja-build source;
# LTO=1 builds with gcc -flto; LTO=thin with clang++ -flto=thin, llvm-ar and lld.
CXXFLAGS ?= -O2 -DNDEBUG -fno-exceptions -fno-rtti -Wno-deprecated
ifeq ($(LTO),1)
CXXFLAGS += -flto=auto
AR = gcc-ar
endif
ifeq ($(LTO),thin)
CXX = clang++
CXXFLAGS += -flto=thin
AR = llvm-ar
LDFLAGS += -fuse-ld=lld
endif
SRC = build.cc build_log.cc clean.cc clparser.cc debug_flags.cc depfile_parser.cc \
      deps_log.cc disk_interface.cc dyndep.cc dyndep_parser.cc edit_distance.cc eval_env.cc \
      graph.cc graphviz.cc json.cc lexer.cc line_printer.cc manifest_parser.cc metrics.cc \
      missing_deps.cc parser.cc state.cc status.cc string_piece_util.cc subprocess-posix.cc \
      util.cc version.cc
OBJS = $(SRC:.cc=.o)
ninja: ninja.o libninja.a
	$(CXX) $(CXXFLAGS) $(LDFLAGS) -o $@ ninja.o libninja.a
libninja.a: $(OBJS)
	rm -f $@
	$(AR) rcs $@ $^
%.o: src/%.cc
	$(CXX) $(CXXFLAGS) -c $< -o $@
clean:
	rm -f ninja libninja.a *.o
.PHONY: clean
