# OpenBench builds an engine with `make -j EXE=<name>` in the repository root and runs
# `./<name> bench` (docs/research/compliance-checks.md, section 6): build the release binary and
# put it where OpenBench looks. EVALFILE, CC and CXX, which OpenBench may pass, are not used.
EXE ?= sparring

.PHONY: all
all:
	cargo build --release --bin sparring
	cp target/release/sparring $(EXE)
