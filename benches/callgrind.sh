#!/bin/sh
# Runs one fstc command under callgrind, which prints the instructions it executed
# ("I refs"): a count that does not move with the machine's load. With a time budget that
# callgrind's slowdown cannot pass wherever the command has the option.
# Usage (instruction counts of the pinned compiles):
#   RAYON_NUM_THREADS=1 WRAP=benches/callgrind.sh benches/pinned_files.sh BINARY OUT 2> LOG
if "$1" "$2" "$3" --help | grep -q -- --time-budget; then
    exec valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" --time-budget 3600
fi
exec valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@"
