#!/usr/bin/env bash
# Fails when an #include in src/ runs upward between the layers (README "Layout", DESIGN.md):
#   core < runtime < memory < tensor < kernels < ops < backends < frontend (random, cuda, jiterator)
#   < training frontends: autograd, data, serialize < nn, optim, graphs < parallel, distributed
# A file in src/<layer>/ may include "<other>/..." only when <other> is its own layer or lower.
# Observers (sanitizer, trace) may include any layer below the frontend; only the cuda/ frontend,
# which exposes their public API, may include them.
# Usage: scripts/check-layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

grep -rnoE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_]+/' src |
  awk -F: '
    function rank(l) {
      if (l == "core") return 0;
      if (l == "runtime") return 1;
      if (l == "memory") return 2;
      if (l == "tensor") return 3;
      if (l == "kernels") return 4;
      if (l == "ops") return 5;
      if (l == "backends") return 6;
      if (l == "sanitizer" || l == "trace") return 7;
      if (l == "random" || l == "cuda" || l == "jiterator") return 8;
      if (l == "autograd" || l == "data" || l == "serialize") return 9;
      if (l == "nn" || l == "optim" || l == "graphs") return 10;
      if (l == "parallel" || l == "distributed") return 11;
      return -1;
    }
    function allowed(from, to) {
      if (rank(to) < 0 || from == to) return 1;
      if (rank(to) == 7) return from == "cuda" || rank(from) > 8;  # observers: the cuda and training frontends
      if (rank(from) == 7) return rank(to) < 7;          # observers see everything below the frontend
      return rank(to) <= rank(from);
    }
    {
      file = $1; line = $2; text = $3;
      split(file, parts, "/"); from = parts[2];
      to = text; sub(/.*"/, "", to); sub(/\/$/, "", to);
      if (rank(from) < 0 || allowed(from, to)) next;
      msg = file ":" line ": " from " includes " to "/";
      bad[++nb] = msg;
    }
    END {
      for (i = 1; i <= nb; ++i) print "upward include: " bad[i];
      if (nb > 0) { print nb " upward include(s)"; exit 1 }
      print "layers ok: no upward include in src/";
    }'
