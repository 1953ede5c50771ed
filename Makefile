# Thin wrapper over CMake.  The two commands a fresh machine needs:
#   make run    install what is missing, build, run the seed scenario
#   make test   the same set-up, then every test
#   make install PREFIX=/opt/kvbudget [DESTDIR=/stage]   (default /usr/local)
#
# Developers and CI add WERROR=1 (warnings as errors); users' builds do not
# fail on a newer compiler's new warnings.
BUILD ?= build
MAKEFLAGS += --no-print-directory
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local
WERROR ?=
SECONDS ?= 60
KVB_WERROR_FLAG = -DKVB_WERROR=$(if $(filter 1 ON on yes,$(WERROR)),ON,OFF)

.PHONY: all deps configure build run test asan bench accuracy install \
	uninstall fuzz format clean web web-screenshot

all: build

deps:
	@sh .ci/deps.sh

configure: deps
	@cmake -S . -B $(BUILD) $(KVB_WERROR_FLAG) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@sh scripts/seed.sh $(BUILD)

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Re-run the fidelity suite and rewrite docs/accuracy.md and the README's
# accuracy summary from it (the test fidelity.doc checks they are current).
accuracy: build
	@$(BUILD)/tests/fidelity/kvb_fidelity --data tests/fidelity/data \
		--write docs/accuracy.md --readme README.md

asan:
	@$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DKVB_SANITIZE=ON -DKVB_BUILD_BENCH=OFF"

# Benchmarks side by side with peers (bench/run.py): prints a summary and
# writes bench/results.json.  Not part of `make test` (which runs each
# benchmark once, tiny).  Installs bench/node from its lock file if missing.
bench: build
	@$$(test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3) bench/run.py --build $(BUILD)

# The calculator page: the library and the command compiled to
# WebAssembly with Debian's emscripten, into web/dist/ (docs/web.md).
# Installs emscripten (and dpkg-dev, for jansson's source package) as root.
web:
	@KVB_DEPS_EXTRA="emscripten dpkg-dev" sh .ci/deps.sh
	@sh web/build.sh build-web web/dist

# Re-take docs/web.png and docs/web-phone.png with the browser tests.
web-screenshot: build
	@KVB_WEB_SHOTS=$(CURDIR)/docs ctest --test-dir $(BUILD) -R web.browser \
		--output-on-failure

# Into $(DESTDIR)$(PREFIX): bin/kvbudget (finds its library through
# $$ORIGIN/../lib), lib/libkvbudget.*, include/kvbudget.h, a relocatable
# kvbudget.pc and the CMake package.  `make uninstall` removes exactly the
# files the last install wrote ($(BUILD)/install_manifest.txt; pass the
# same DESTDIR).
install: build
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

uninstall:
	@test -f $(BUILD)/install_manifest.txt || \
		{ echo "make uninstall: nothing installed from $(BUILD)" >&2; exit 1; }
	@sed 's|^|$(DESTDIR)|' $(BUILD)/install_manifest.txt | tr '\n' '\0' | \
		xargs -0 rm -f --
	@rm -f $(BUILD)/install_manifest.txt

# Every fuzz target for SECONDS seconds each (clang's libFuzzer; builds
# build-fuzz).  docs/reliability.md records the figures of a long run.
fuzz:
	@sh tests/fuzz/run.sh $(SECONDS)

format:
	@sh scripts/format.sh

clean:
	@rm -rf $(BUILD) build-asan
