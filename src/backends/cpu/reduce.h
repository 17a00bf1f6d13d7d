// The cpu launcher's reductions and softmax: the single-source functors of kernels/reduce_functors.h
// run over a ReducePlan by a parallel loop (CpuLauncher::reduce and ::softmax, backends/cpu/launch.h).
//
// Note [Reduction order on cpu]
// Every output is reduced by one fixed tree over its reduction positions, whatever the thread
// count: positions are cut at multiples of kChunk, each chunk is halved down to leaves of at most
// kLeaf positions, and a leaf runs K independent accumulators (so the loop vectorizes) in blocks
// of kBlockSteps steps, folding each block into the leaf's accumulators, which it combines at the
// end; no accumulator of a dense run takes more than kBlockSteps steps in a row. Chunks are what
// threads share out when there are fewer outputs than threads; their partial accumulators are
// combined in the same tree, so results are bit-identical for any number of threads, and float
// sums get the accuracy of pairwise summation.
// When the input's fastest dim is a kept dim ("across rows", e.g. sum over dim 0 of a row-major
// matrix), a tile of up to kTileBytes of accumulators advances along contiguous rows instead, and
// the tree runs over rows, with leaves of kRowLeaf to 4 * kBlockSteps rows.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>

#include "backends/cpu/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/reduce_functors.h"
#include "kernels/reduce_plan.h"

// Hidden in libctorch: these templates are instantiated per op and dtype, and exporting each
// instantiation would add thousands of dynamic symbols for the loader to resolve at startup.
#ifndef __CUDACC__
#pragma GCC visibility push(hidden)
#endif

namespace ctorch::inline api::backends::cpu {

namespace reduce_detail {

using kernels::opmath_t;
using kernels::ReducePlan;
using kernels::SoftmaxPlan;

constexpr int64_t kLeaf = 1024;          // positions reduced sequentially (K accumulators)
constexpr int64_t kChunk = 32768;        // positions per parallel chunk
constexpr int64_t kGrain = 32768;        // input elements per parallel task
constexpr int64_t kBlockSteps = 16;      // sequential steps of one accumulator before it is folded
constexpr int64_t kRowLeaf = 16;         // min rows of an across-row leaf (max: 4 * kBlockSteps)
constexpr int64_t kTileBytes = 2048;     // accumulator tile of across-row reductions
constexpr int64_t kStreamGap = 8192;     // bytes between streams read together (prefetchers need distance)

template <class Out, class V>
inline void store_value(char* p, V v) {
  if constexpr (std::is_same_v<Out, Half> || std::is_same_v<Out, BFloat16>) {
    *reinterpret_cast<Out*>(p) = Out(static_cast<float>(v));
  } else {
    *reinterpret_cast<Out*>(p) = static_cast<Out>(v);
  }
}

// Walks kept dims [first, nkept) of a plan, tracking the input (bytes) and output (elements) offsets.
struct KeptCursor {
  const ReducePlan* plan;
  int first;
  int64_t idx[kernels::kMaxDims];
  int64_t in_off = 0;
  int64_t out_off = 0;

  KeptCursor(const ReducePlan& p, int first_dim, int64_t linear) : plan(&p), first(first_dim) {
    for (int d = first; d < p.nkept; ++d) {
      idx[d] = linear % p.kept_size[d];
      linear /= p.kept_size[d];
      in_off += idx[d] * p.kept_in[d];
      out_off += idx[d] * p.kept_out[d];
    }
  }
  void next() {
    for (int d = first; d < plan->nkept; ++d) {
      in_off += plan->kept_in[d];
      out_off += plan->kept_out[d];
      if (++idx[d] < plan->kept_size[d]) return;
      in_off -= idx[d] * plan->kept_in[d];
      out_off -= idx[d] * plan->kept_out[d];
      idx[d] = 0;
    }
  }
};

// Runs functor Op over a plan: T is the input storage type, Out the values output storage type.
template <class T, class Out, class Op>
class Reducer {
 public:
  using acc_t = typename Op::acc_t;
  using in_t = typename Op::in_t;
  // Independent accumulators per stream: four SSE vectors of plain numbers (measured: with two,
  // GCC 12 fails to vectorize a + x * x across four streams), two for the rest.
  static constexpr int K = std::is_arithmetic_v<acc_t> ? std::max<int>(1, 64 / static_cast<int>(sizeof(acc_t))) : 2;
  static constexpr int64_t kTile = std::max<int64_t>(8, kTileBytes / static_cast<int64_t>(sizeof(acc_t)));

  Reducer(const ReducePlan& plan, char* const* data, const Op& op)
      : plan_(plan),
        op_(op),
        values_(data[0]),
        input_(data[1]),
        indices_(Op::kIndexed ? data[2] : nullptr),
        dense_(plan.nred == 1 && plan.red_in[0] == static_cast<int64_t>(sizeof(T))) {}

  __attribute__((noinline)) void run() const {
    if (plan_.numel_out == 0) return;
    if (plan_.numel_reduce == 0) {
      parallel_for(0, plan_.numel_out, kGrain, [this](int64_t b, int64_t e) { fill_identity(b, e); });
      return;
    }
    if (plan_.fastest_reduced || plan_.nkept == 0) {
      run_along();
    } else {
      run_across();
    }
  }

 private:
  static in_t load(const T& x) { return static_cast<in_t>(static_cast<opmath_t<T>>(x)); }
  static in_t load_at(const char* p) { return load(*reinterpret_cast<const T*>(p)); }

  void store(int64_t out_off, const acc_t& acc) const {
    const auto v = op_.project(acc);
    if constexpr (Op::kIndexed) {
      if (values_) store_value<Out>(values_ + out_off * static_cast<int64_t>(sizeof(Out)), v.value);
      if (indices_) reinterpret_cast<int64_t*>(indices_)[out_off] = v.index;
    } else {
      store_value<Out>(values_ + out_off * static_cast<int64_t>(sizeof(Out)), v);
    }
  }

  // Split point of [b, e) in the fixed tree (Note [Reduction order on cpu]); `chunk` is kChunk in
  // positions, or its row equivalent.
  static int64_t split(int64_t b, int64_t e, int64_t chunk) {
    const int64_t n = e - b;
    if (n > chunk) return b + ((n + chunk - 1) / chunk / 2) * chunk;
    return b + n / 2;
  }

  // Loop bodies of parallel regions are out-of-line members, so the serial call and the pool's
  // std::function share one copy.
  __attribute__((noinline)) void fill_identity(int64_t b, int64_t e) const {
    KeptCursor cur(plan_, 0, b);
    for (int64_t o = b; o < e; ++o, cur.next()) store(cur.out_off, op_.identity());
  }

  // ---- along rows: one accumulator chain per output ---------------------------------------------

  void run_along() const {
    const int64_t m = plan_.numel_out, n = plan_.numel_reduce;
    const int threads = num_threads();
    if (n > kChunk && threads > 1 && m < threads && !in_parallel_region()) {
      KeptCursor cur(plan_, 0, 0);
      for (int64_t o = 0; o < m; ++o, cur.next()) store(cur.out_off, parallel_tree(input_ + cur.in_off));
      return;
    }
    const int64_t grain = std::max<int64_t>(1, kGrain / n);
    parallel_for(0, m, grain, [this](int64_t b, int64_t e) { along_range(b, e); });
  }

  // Outputs [b, e), each reduced in one chain.
  __attribute__((noinline)) void along_range(int64_t b, int64_t e) const {
    const int64_t n = plan_.numel_reduce;
    KeptCursor cur(plan_, 0, b);
    if (n < 2 * K && plan_.nred <= 1) {  // short rows: one accumulator each
      const int64_t stride = plan_.nred == 0 ? 0 : plan_.red_in[0];
      for (int64_t o = b; o < e; ++o, cur.next()) {
        const char* p = input_ + cur.in_off;
        acc_t a = op_.identity();
        for (int64_t i = 0; i < n; ++i) a = op_.reduce(a, load_at(p + i * stride), i);
        store(cur.out_off, a);
      }
      return;
    }
    int64_t o = b;
    if (dense_) {  // four rows at a time: four memory streams
      const int64_t same_pos[4] = {0, 0, 0, 0};
      for (; o + 4 <= e; o += 4) {
        const char* bases[4];
        int64_t outs[4];
        for (int s = 0; s < 4; ++s, cur.next()) {
          bases[s] = input_ + cur.in_off;
          outs[s] = cur.out_off;
        }
        acc_t r[4];
        tree4(bases, same_pos, 0, n, r);
        for (int s = 0; s < 4; ++s) store(outs[s], r[s]);
      }
    }
    for (; o < e; ++o, cur.next()) store(cur.out_off, tree(input_ + cur.in_off, 0, n));
  }

  acc_t parallel_tree(const char* base) const {
    const int64_t n = plan_.numel_reduce;
    const int64_t nchunks = (n + kChunk - 1) / kChunk;
    std::unique_ptr<acc_t[]> part(new acc_t[static_cast<size_t>(nchunks)]);
    acc_t* parts = part.get();
    parallel_for(0, nchunks, 1, [this, base, n, parts](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) parts[c] = tree(base, c * kChunk, std::min(n, (c + 1) * kChunk));
    });
    return chunk_tree(parts, 1, 0, nchunks);
  }

  // Combines partials p[c * stride] for c in [b, e) in the order tree() would.
  __attribute__((noinline)) acc_t chunk_tree(const acc_t* p, int64_t stride, int64_t b, int64_t e) const {
    if (e - b == 1) return p[b * stride];
    const int64_t mid = b + (e - b) / 2;
    return op_.combine(chunk_tree(p, stride, b, mid), chunk_tree(p, stride, mid, e));
  }

  __attribute__((noinline)) acc_t tree(const char* base, int64_t b, int64_t e) const {
    const int64_t n = e - b;
    if (n <= kLeaf) return leaf(base, b, e);
    const int64_t mid = split(b, e, kChunk);
    if (dense_ && n <= kChunk && n % 4 == 0 && n / 4 * static_cast<int64_t>(sizeof(T)) >= kStreamGap) {
      // The four equal quarters of a chunk at once (the same tree, four memory streams).
      const int64_t q = n / 4;
      const char* bases[4] = {base, base, base, base};
      const int64_t offsets[4] = {0, q, 2 * q, 3 * q};
      acc_t g[4];
      tree4(bases, offsets, b, b + q, g);
      return op_.combine(op_.combine(g[0], g[1]), op_.combine(g[2], g[3]));
    }
    return op_.combine(tree(base, b, mid), tree(base, mid, e));
  }

  // tree(bases[s] shifted by offsets[s] positions, b, e) for four streams at once; dense rows only.
  // Leaves interleave the streams step by step, with the arithmetic of leaf() for each.
  __attribute__((noinline)) void tree4(const char* const* bases, const int64_t* offsets, int64_t b, int64_t e,
                                       acc_t* out) const {
    if (e - b <= kLeaf) {
      acc_t accs[4][K];
      const T* q[4];
      int64_t pos[4];
      for (int s = 0; s < 4; ++s) {
        for (int k = 0; k < K; ++k) accs[s][k] = op_.identity();
        pos[s] = b + offsets[s];
        q[s] = reinterpret_cast<const T*>(bases[s]) + pos[s];
      }
      accumulate_dense<4>(accs, q, e - b, pos);
      for (int s = 0; s < 4; ++s) out[s] = fold(accs[s]);
      return;
    }
    const int64_t mid = split(b, e, kChunk);
    acc_t left[4], right[4];
    tree4(bases, offsets, b, mid, left);
    tree4(bases, offsets, mid, e, right);
    for (int s = 0; s < 4; ++s) out[s] = op_.combine(left[s], right[s]);
  }

  acc_t fold(acc_t (&acc)[K]) const {
    for (int w = K / 2; w >= 1; w /= 2) {
      for (int k = 0; k < w; ++k) acc[k] = op_.combine(acc[k], acc[k + w]);
    }
    return acc[0];
  }

  acc_t leaf(const char* base, int64_t b, int64_t e) const {
    acc_t acc[1][K];
    for (int k = 0; k < K; ++k) acc[0][k] = op_.identity();
    if (plan_.nred <= 1) {
      const int64_t stride = plan_.nred == 0 ? 0 : plan_.red_in[0];
      accumulate(acc[0], base + b * stride, stride, e - b, b);
    } else {
      int64_t idx[kernels::kMaxDims];
      int64_t linear = b, off = 0;
      for (int d = 0; d < plan_.nred; ++d) {
        idx[d] = linear % plan_.red_size[d];
        linear /= plan_.red_size[d];
        off += idx[d] * plan_.red_in[d];
      }
      int64_t pos = b;
      while (pos < e) {
        const int64_t len = std::min(plan_.red_size[0] - idx[0], e - pos);
        accumulate(acc[0], base + off, plan_.red_in[0], len, pos);
        pos += len;
        off -= idx[0] * plan_.red_in[0];  // back to the start of dim 0, then carry into dim 1..
        idx[0] = 0;
        for (int d = 1; d < plan_.nred; ++d) {
          off += plan_.red_in[d];
          if (++idx[d] < plan_.red_size[d]) break;
          off -= idx[d] * plan_.red_in[d];
          idx[d] = 0;
        }
      }
    }
    return fold(acc[0]);
  }

  // Folds n elements at p (byte stride `stride`, positions pos..) into the K accumulators; strided
  // runs use one of them.
  void accumulate(acc_t (&accs)[K], const char* p, int64_t stride, int64_t n, int64_t pos) const {
    if (stride == static_cast<int64_t>(sizeof(T))) {
      const T* q = reinterpret_cast<const T*>(p);
      accumulate_dense<1>(&accs, &q, n, &pos);
      return;
    }
    acc_t a = accs[0];
    for (int64_t i = 0; i < n; ++i) a = op_.reduce(a, load_at(p + i * stride), pos + i);
    accs[0] = a;
  }

  // Folds n contiguous elements of each of S streams into its K accumulators: blocks of
  // kBlockSteps steps run in local accumulators (so the compiler knows the input cannot alias them)
  // and fold into accs; the tail goes through one accumulator. Full blocks have a fixed step count,
  // which keeps GCC on lane-wise vector adds (with a variable count it picks an in-order
  // "fold-left" vector reduction that is several times slower).
  template <int S>
  void accumulate_dense(acc_t (*accs)[K], const T* const* q, int64_t n, const int64_t* pos) const {
    constexpr int64_t kBlock = K * kBlockSteps;
    int64_t i = 0;
    for (; i + kBlock <= n; i += kBlock) {
      acc_t acc[S][K];
      for (int s = 0; s < S; ++s) {
        for (int k = 0; k < K; ++k) acc[s][k] = op_.identity();
      }
      for (int64_t t = 0; t < kBlockSteps; ++t) {
        for (int s = 0; s < S; ++s) {
          for (int k = 0; k < K; ++k) {
            acc[s][k] = op_.reduce(acc[s][k], load(q[s][i + t * K + k]), pos[s] + i + t * K + k);
          }
        }
      }
      for (int s = 0; s < S; ++s) {
        for (int k = 0; k < K; ++k) accs[s][k] = op_.combine(accs[s][k], acc[s][k]);
      }
    }
    if (i + K <= n) {  // a partial block
      const int64_t steps = (n - i) / K;
      acc_t acc[S][K];
      for (int s = 0; s < S; ++s) {
        for (int k = 0; k < K; ++k) acc[s][k] = op_.identity();
      }
      for (int64_t t = 0; t < steps; ++t) {
        for (int s = 0; s < S; ++s) {
          for (int k = 0; k < K; ++k) {
            acc[s][k] = op_.reduce(acc[s][k], load(q[s][i + t * K + k]), pos[s] + i + t * K + k);
          }
        }
      }
      for (int s = 0; s < S; ++s) {
        for (int k = 0; k < K; ++k) accs[s][k] = op_.combine(accs[s][k], acc[s][k]);
      }
      i += steps * K;
    }
    for (int s = 0; s < S; ++s) {
      acc_t a = op_.identity();
      for (int64_t j = i; j < n; ++j) a = op_.reduce(a, load(q[s][j]), pos[s] + j);
      accs[s][0] = op_.combine(accs[s][0], a);
    }
  }

  // ---- across rows: a tile of outputs advances along each row --------------------------------------

  int64_t row_offset(int64_t r) const { return plan_.nred == 1 ? r * plan_.red_in[0] : plan_.red_offset(r); }

  // Geometry of an across-rows reduction: `units` tiles of up to kTile columns, reduced over `rows`.
  struct Across {
    int64_t cols, rows, tiles, units, tile_w, leaf_rows, row_chunk, nchunks;
  };

  void run_across() const {
    Across g;
    g.cols = plan_.kept_size[0];
    g.rows = plan_.numel_reduce;
    g.tile_w = std::min(g.cols, kTile);
    g.tiles = (g.cols + kTile - 1) / kTile;
    g.units = plan_.numel_out / g.cols * g.tiles;
    g.leaf_rows = std::clamp(kLeaf / g.tile_w, kRowLeaf, 4 * kBlockSteps);  // up to ~kLeaf elements
    g.row_chunk = std::max(g.leaf_rows, kChunk / g.tile_w / g.leaf_rows * g.leaf_rows);
    g.nchunks = (g.rows + g.row_chunk - 1) / g.row_chunk;
    const int threads = num_threads();
    if (g.units < threads && g.nchunks > 1 && threads > 1 && !in_parallel_region()) {
      // Few tiles: threads share row chunks; partials are combined in the fixed tree.
      std::unique_ptr<acc_t[]> part(new acc_t[static_cast<size_t>(g.units * g.nchunks * g.tile_w)]);
      acc_t* parts = part.get();
      parallel_for(0, g.units * g.nchunks, 1, [this, &g, parts](int64_t b, int64_t e) { across_chunks(g, parts, b, e); });
      for (int64_t u = 0; u < g.units; ++u) {
        const int64_t c0 = (u % g.tiles) * kTile, cw = std::min(kTile, g.cols - c0);
        KeptCursor cur(plan_, 1, u / g.tiles);
        const acc_t* p = parts + u * g.nchunks * g.tile_w;
        for (int64_t j = 0; j < cw; ++j) {
          store(cur.out_off + (c0 + j) * plan_.kept_out[0], chunk_tree(p + j, g.tile_w, 0, g.nchunks));
        }
      }
      return;
    }
    const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, g.rows * g.tile_w));
    parallel_for(0, g.units, grain, [this, &g](int64_t b, int64_t e) { across_units(g, b, e); });
  }

  // Tiles [b, e), each over all rows.
  __attribute__((noinline)) void across_units(const Across& g, int64_t b, int64_t e) const {
    acc_t acc[kTile];
    for (int64_t u = b; u < e; ++u) {
      const int64_t c0 = (u % g.tiles) * kTile, cw = std::min(kTile, g.cols - c0);
      KeptCursor cur(plan_, 1, u / g.tiles);
      row_tree(input_ + cur.in_off + c0 * plan_.kept_in[0], cw, 0, g.rows, g.leaf_rows, g.row_chunk, acc);
      for (int64_t j = 0; j < cw; ++j) store(cur.out_off + (c0 + j) * plan_.kept_out[0], acc[j]);
    }
  }

  // (tile, row chunk) pairs [b, e) into their partial slots.
  __attribute__((noinline)) void across_chunks(const Across& g, acc_t* parts, int64_t b, int64_t e) const {
    for (int64_t t = b; t < e; ++t) {
      const int64_t u = t / g.nchunks, c = t % g.nchunks;
      const int64_t c0 = (u % g.tiles) * kTile, cw = std::min(kTile, g.cols - c0);
      KeptCursor cur(plan_, 1, u / g.tiles);
      row_tree(input_ + cur.in_off + c0 * plan_.kept_in[0], cw, c * g.row_chunk,
               std::min(g.rows, (c + 1) * g.row_chunk), g.leaf_rows, g.row_chunk, parts + t * g.tile_w);
    }
  }

  __attribute__((noinline)) void row_tree(const char* base, int64_t cw, int64_t r0, int64_t r1, int64_t leaf_rows,
                                          int64_t row_chunk, acc_t* acc) const {
    if (r1 - r0 <= leaf_rows) {
      row_leaf(base, cw, r0, r1, acc);
      return;
    }
    const int64_t mid = split(r0, r1, row_chunk);
    row_tree(base, cw, r0, mid, leaf_rows, row_chunk, acc);
    acc_t tmp[kTile];
    row_tree(base, cw, mid, r1, leaf_rows, row_chunk, tmp);
    for (int64_t j = 0; j < cw; ++j) acc[j] = op_.combine(acc[j], tmp[j]);
  }

  // Rows r0..r1 (at most 4 * kBlockSteps) into acc[0..cw). Dense rows go four at a time, added
  // pairwise ((x0 + x1) + (x2 + x3) for a sum) before they reach the accumulator, so each
  // accumulator is loaded and stored once per four rows and takes at most kBlockSteps steps.
  void row_leaf(const char* base, int64_t cw, int64_t r0, int64_t r1, acc_t* __restrict acc) const {
    for (int64_t j = 0; j < cw; ++j) acc[j] = op_.identity();
    const int64_t cs = plan_.kept_in[0];
    int64_t r = r0;
    if (cs == static_cast<int64_t>(sizeof(T)) && plan_.nred == 1) {
      const int64_t rs = plan_.red_in[0];
      const acc_t id = op_.identity();
      for (; r + 4 <= r1; r += 4) {
        const T* q0 = reinterpret_cast<const T*>(base + r * rs);
        const T* q1 = reinterpret_cast<const T*>(base + (r + 1) * rs);
        const T* q2 = reinterpret_cast<const T*>(base + (r + 2) * rs);
        const T* q3 = reinterpret_cast<const T*>(base + (r + 3) * rs);
        for (int64_t j = 0; j < cw; ++j) {
          const acc_t a = op_.reduce(op_.reduce(id, load(q0[j]), r), load(q1[j]), r + 1);
          const acc_t b = op_.reduce(op_.reduce(id, load(q2[j]), r + 2), load(q3[j]), r + 3);
          acc[j] = op_.combine(acc[j], op_.combine(a, b));
        }
      }
    }
    for (; r < r1; ++r) {
      const char* p = base + row_offset(r);
      for (int64_t j = 0; j < cw; ++j) acc[j] = op_.reduce(acc[j], load_at(p + j * cs), r);
    }
  }

  const ReducePlan& plan_;
  Op op_;
  char* values_;
  const char* input_;
  char* indices_;
  bool dense_;  // one reduced dim, contiguous: position r is element r of a row
};

// ---- softmax ---------------------------------------------------------------------------------------

constexpr int64_t kSoftmaxTile = 256;

// Softmax keeps exp(x - max) in the output between passes when T is the accumulate type (one exp
// per element, as PyTorch); half and bfloat16 recompute it rather than round it twice.
template <class T>
inline constexpr bool kStoreExp = std::is_same_v<T, opmath_t<T>>;

// Largest of x[0..n) (NaN propagates), with independent lanes so the comparisons overlap.
template <class T, class A = opmath_t<T>>
A row_max(const T* x, int64_t n) {
  constexpr int kLanes = 8;
  const kernels::MaxOp<A> max_op;
  A lane[kLanes];
  for (int k = 0; k < kLanes; ++k) lane[k] = max_op.identity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int k = 0; k < kLanes; ++k) lane[k] = max_op.reduce(lane[k], static_cast<A>(x[i + k]), 0);
  }
  for (; i < n; ++i) lane[0] = max_op.reduce(lane[0], static_cast<A>(x[i]), 0);
  for (int k = 1; k < kLanes; ++k) lane[0] = max_op.combine(lane[0], lane[k]);
  return lane[0];
}

template <class T, bool Log>
void softmax_rows(const SoftmaxPlan& plan, const T* in, T* out) {
  using A = opmath_t<T>;
  const int64_t n = plan.dim_size;
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, n));
  parallel_for(0, plan.outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const T* x = in + row * n;
      T* y = out + row * n;
      const A mx = row_max(x, n);
      A sum = 0;
      if constexpr (!Log && kStoreExp<T>) {
        for (int64_t i = 0; i < n; ++i) {
          y[i] = std::exp(x[i] - mx);
          sum += y[i];
        }
      } else {
        for (int64_t i = 0; i < n; ++i) sum += std::exp(static_cast<A>(x[i]) - mx);
      }
      if constexpr (Log) {
        const A shift = mx + std::log(sum);
        for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(static_cast<A>(x[i]) - shift);
      } else if constexpr (kStoreExp<T>) {
        const A scale = A(1) / sum;
        for (int64_t i = 0; i < n; ++i) y[i] *= scale;
      } else {
        const A scale = A(1) / sum;
        for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(std::exp(static_cast<A>(x[i]) - mx) * scale);
      }
    }
  });
}

// Softmax over a dim that is not the innermost: a tile of `inner` positions advances along the dim.
template <class T, bool Log>
void softmax_inner(const SoftmaxPlan& plan, const T* in, T* out) {
  using A = opmath_t<T>;
  const int64_t n = plan.dim_size, inner = plan.inner;
  const int64_t tiles = (inner + kSoftmaxTile - 1) / kSoftmaxTile;
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, n * std::min(inner, kSoftmaxTile)));
  parallel_for(0, plan.outer * tiles, grain, [&](int64_t b, int64_t e) {
    const kernels::MaxOp<A> max_op;
    A mx[kSoftmaxTile], sum[kSoftmaxTile];
    for (int64_t u = b; u < e; ++u) {
      const int64_t o = u / tiles, c0 = (u % tiles) * kSoftmaxTile;
      const int64_t w = std::min(kSoftmaxTile, inner - c0);
      const T* x = in + o * n * inner + c0;
      T* y = out + o * n * inner + c0;
      for (int64_t j = 0; j < w; ++j) {
        mx[j] = max_op.identity();
        sum[j] = 0;
      }
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < w; ++j) mx[j] = max_op.reduce(mx[j], static_cast<A>(x[i * inner + j]), i);
      }
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < w; ++j) {
          const A v = std::exp(static_cast<A>(x[i * inner + j]) - mx[j]);
          if constexpr (!Log && kStoreExp<T>) y[i * inner + j] = v;
          sum[j] += v;
        }
      }
      for (int64_t j = 0; j < w; ++j) sum[j] = Log ? mx[j] + std::log(sum[j]) : A(1) / sum[j];
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < w; ++j) {
          const A v = static_cast<A>(x[i * inner + j]);
          if constexpr (Log) {
            y[i * inner + j] = static_cast<T>(v - sum[j]);
          } else if constexpr (kStoreExp<T>) {
            y[i * inner + j] *= sum[j];
          } else {
            y[i * inner + j] = static_cast<T>(std::exp(v - mx[j]) * sum[j]);
          }
        }
      }
    }
  });
}

}  // namespace reduce_detail

/// Runs reduction functor Op over `plan`: T is the input storage type, Out the values output's.
template <class T, class Out, class Op>
void run_reduction(const kernels::ReducePlan& plan, char* const* data, const Op& op) {
  reduce_detail::Reducer<T, Out, Op>(plan, data, op).run();
}

/// (log_)softmax over `plan` in storage type T.
template <class T, bool Log>
void run_softmax(const kernels::SoftmaxPlan& plan, char* const* data) {
  T* out = reinterpret_cast<T*>(data[0]);
  const T* in = reinterpret_cast<const T*>(data[1]);
  if (plan.inner == 1) {
    reduce_detail::softmax_rows<T, Log>(plan, in, out);
  } else {
    reduce_detail::softmax_inner<T, Log>(plan, in, out);
  }
}

}  // namespace ctorch::api::backends::cpu

#ifndef __CUDACC__
#pragma GCC visibility pop
#endif
