#!/bin/sh
# CMake compiler and linker launcher for the upstream tests: runs the command and keeps its stderr
# in <output file>.log (the file after -o), which run_upstream.py parses. Nothing else changes.
out=
prev=
for a in "$@"; do
  [ "$prev" = "-o" ] && out=$a
  prev=$a
done
[ -n "$out" ] || exec "$@"
"$@" 2>"$out.log"
