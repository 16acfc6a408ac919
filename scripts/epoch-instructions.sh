#!/bin/sh
# epoch-instructions.sh FILE [EPOCHS]
#
# Prints the instructions an example of an SGD epoch and of an SRG epoch
# (levels, mini-batches of 128 without replacement, the constant step of the
# paper's experiments) on the LIBSVM file FILE, counted by valgrind's
# callgrind, and their ratio. Each method runs twice, for 1 and for
# 1+EPOCHS timed epochs (default 10); the difference of the two counts is
# EPOCHS epochs, so that start-up, reading the file and the first epoch
# cancel. Instruction counts do not depend on the machine's load.
#
# Run from the module's root: sh scripts/epoch-instructions.sh mushrooms.gz
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 FILE [EPOCHS]" >&2
	exit 2
fi
file=$1
epochs=${2:-10}
command -v valgrind >/dev/null || { echo "$0: valgrind not found" >&2; exit 1; }
[ -r "$file" ] || { echo "$0: cannot read $file" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/srg.test" ./srg

# count IMPL N prints the instructions of a whole run of IMPL with N timed
# epochs. The Go runtime issues RDTSCP, which valgrind cannot run, when its
# threads contend for a lock; one thread and no preemption signals make
# that rare, and a run that dies of it is run again.
count() {
	for _ in 1 2 3 4 5; do
		if GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
			--callgrind-out-file="$tmp/cg.out" "$tmp/srg.test" -test.run '^$' \
			-test.bench "^BenchmarkEpoch\$/impl=$1/" -test.benchtime "${2}x" \
			-epochfile "$file" >"$tmp/bench.out" 2>"$tmp/vg.err"; then
			ir=$(sed -n 's/^summary: *//p' "$tmp/cg.out")
			if [ -n "$ir" ]; then
				echo "$ir"
				return
			fi
		fi
	done
	echo "$0: callgrind failed 5 times on $1:" >&2
	cat "$tmp/vg.err" "$tmp/bench.out" >&2
	exit 1
}

# The examples an epoch holds (⌈n/128⌉ batches of 128), from the
# benchmark's own report.
"$tmp/srg.test" -test.run '^$' -test.bench '^BenchmarkEpoch$/impl=sgd/' \
	-test.benchtime 1x -epochfile "$file" >"$tmp/bench.out"
per=$(awk '{for (i = 2; i <= NF; i++) if ($i == "examples/epoch") print $(i-1)}' "$tmp/bench.out")
[ -n "$per" ] || { echo "$0: no epoch on $file:" >&2; cat "$tmp/bench.out" >&2; exit 1; }

sgd1=$(count sgd 1)
sgd2=$(count sgd $((epochs + 1)))
srg1=$(count srg-levels 1)
srg2=$(count srg-levels $((epochs + 1)))
awk -v f="$file" -v e="$epochs" -v per="$per" -v a1="$sgd1" -v a2="$sgd2" \
	-v b1="$srg1" -v b2="$srg2" 'BEGIN {
	sgd = (a2 - a1) / (e * per)
	srg = (b2 - b1) / (e * per)
	printf "%s: %d examples an epoch, %d epochs counted\n", f, per, e
	printf "SGD  %8.1f instructions an example\n", sgd
	printf "SRG  %8.1f instructions an example (levels)\n", srg
	printf "SRG / SGD %.3f\n", srg / sgd
}'
