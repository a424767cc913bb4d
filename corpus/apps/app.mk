# app.mk - the build shared by the mini-applications under corpus/apps/.  An application's
# Makefile sets
#
#   APP   the program name          SRCS  its sources
#   RTOL  relative tolerance of the result check (reductions reassociate sums)
#
# and includes this file.  Targets:
#
#   make               plain build:   build/$(APP)
#   make LIFT=1        lifted build:  every .c is lifted to build/lift/*.c (with a dependency
#                      file listing the headers it included), then compiled with -fopenmp
#   make check         build both, run the plain build once and the lifted build with
#                      OMP_NUM_THREADS = each of $(THREADS), compare every "name: value" line
#   make OMP=1         hand-written OpenMP build: build/$(APP)_omp, the sources compiled with
#                      -DHAND_OMP -fopenmp (apps that carry OMP(...) directives, see hand_omp.h:
#                      the baseline a user would write, that lift is compared with)
#   make check-omp     as check, for the hand-written OpenMP build
#   make clean
#
# ARGS are passed to every run (the tests pass a small problem size there).

CC       ?= gcc
CFLAGS   ?= -O3 -std=c99 -Wall -Wextra
CPPFLAGS ?=
LDLIBS   ?= -lm
LIFT_TOOL ?= lift
LIFT_FLAGS ?=
THREADS  ?= 1 2 8
RTOL     ?= 0
ARGS     ?=

# ../hand_omp.h (the OMP(...) directive macro) is shared by the apps.
CPPFLAGS += -I..

PLAIN := $(SRCS:%.c=build/plain/%.o)
LIFTED_OBJS := $(SRCS:%.c=build/lift/%.o)
HAND_OBJS := $(SRCS:%.c=build/omp/%.o)

ifeq ($(LIFT),1)
all: build/$(APP)_lift
else ifeq ($(OMP),1)
all: build/$(APP)_omp
else
all: build/$(APP)
endif

build/$(APP): $(PLAIN)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

build/$(APP)_lift: $(LIFTED_OBJS)
	$(CC) $(CFLAGS) -fopenmp $^ -o $@ $(LDLIBS)

build/$(APP)_omp: $(HAND_OBJS)
	$(CC) $(CFLAGS) -fopenmp $^ -o $@ $(LDLIBS)

build/omp/%.o: %.c | build/omp
	$(CC) -DHAND_OMP $(CPPFLAGS) $(CFLAGS) -fopenmp -MMD -MP -c $< -o $@

build/plain/%.o: %.c | build/plain
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

build/lift/%.c: %.c | build/lift
	$(LIFT_TOOL) $(LIFT_FLAGS) $(CPPFLAGS) $(CFLAGS) $< -o $@ -MMD -MP -MF $@.d

# Lifted sources live in build/lift/, their headers here: -I. finds them.
build/lift/%.o: build/lift/%.c
	$(CC) -I. $(CPPFLAGS) $(CFLAGS) -fopenmp -MMD -MP -c $< -o $@

build/plain build/lift build/omp:
	mkdir -p $@

# Lines are "name: value"; values are compared with a relative tolerance, names must match.
# $(call COMPARE,KIND) names the build compared with the plain one in its messages.
COMPARE = awk -v rtol=$(RTOL) -v kind='$(1)' 'NR == FNR { want[$$1] = $$2; next } \
	  { if (!($$1 in want)) { print "unexpected line: " $$0; bad = 1; next } \
	    d = $$2 - want[$$1]; if (d < 0) d = -d; m = want[$$1] < 0 ? -want[$$1] : want[$$1]; \
	    if (d > rtol * m) { print "mismatch: " $$1 " " want[$$1] " (plain) vs " $$2 " (" kind ")"; bad = 1 } \
	    seen[$$1] = 1 } \
	  END { for (k in want) if (!(k in seen)) { print "missing line: " k; bad = 1 } \
	        if (bad) exit 1 }'

# $(call compare_at_threads,BUILD,KIND): run build/$(APP)_BUILD at every $(THREADS), compare with
# the plain build's output.
define compare_at_threads
	./build/$(APP) $(ARGS) > build/plain.out
	@for t in $(THREADS); do \
	  OMP_NUM_THREADS=$$t ./build/$(APP)_$(1) $(ARGS) > build/$(1).$$t.out || exit 1; \
	  $(call COMPARE,$(2)) build/plain.out build/$(1).$$t.out || exit 1; \
	  echo "check: $(2) build agrees with plain build at $$t threads"; \
	done
endef

check: build/$(APP) build/$(APP)_lift
	$(call compare_at_threads,lift,lifted)

check-omp: build/$(APP) build/$(APP)_omp
	$(call compare_at_threads,omp,hand OpenMP)

clean:
	rm -rf build

# Lifted sources are kept (not deleted as intermediate files): they are the product.
.SECONDARY:
.PHONY: all check check-omp clean

-include $(wildcard build/plain/*.d build/lift/*.d build/omp/*.d)
