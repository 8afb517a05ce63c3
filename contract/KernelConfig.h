//===- KernelConfig.h - Configs, tunables and their limits ------*- C++ -*-===//
//
// A kernel's config is what `dslc --config` takes and the tuner searches:
// one block size per tunable tile, warps per CTA, the runtime's grid cap
// and any tunable the kernel declares by name. The limits on each value are
// here and nowhere else; the compiler (decorator configs, --config,
// hl.tile block sizes), the tuning cache and the tuner all check values
// with the functions below.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_KERNELCONFIG_H
#define DSLC_CONTRACT_KERNELCONFIG_H

#include "contract/Expected.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace dslc::contract {

/// Largest block size of one tile dimension. A tile that holds data must
/// also fit a CTA's registers (the compiler checks that separately); a
/// block may be this large when its tile only ranges over indices.
inline constexpr int64_t kMaxBlockSize = int64_t(1) << 20;
/// Most warps a CTA can have (1024 threads).
inline constexpr int64_t kMaxNumWarps = 32;
/// The most stages a software-pipelined loop keeps in flight (num_stages).
inline constexpr int64_t kMaxNumStages = 8;
/// The smallest chunk of a row the tuner offers as reduction_loops: 512
/// columns keep a chunk's loads whole 16-byte vectors over 4 warps or
/// more (each chunk loop re-reads its part of the row).
inline constexpr int64_t kMinReductionChunk = 512;
/// The largest l2_groupings value (rows of tiles per group).
inline constexpr int64_t kMaxL2Grouping = 1024;
/// The longest load_eviction_policies list (one entry a load of the
/// kernel's source).
inline constexpr int64_t kMaxLoads = 4096;
/// Most loads whose cache hints a kernel's metadata lists (and the tuner
/// searches) one by one; a kernel of more lists one hint for them all.
inline constexpr unsigned kMaxPerLoadHints = 8;
/// The fewest and most registers a thread may be held to (maxnreg): PTX
/// allows .maxnreg up to 255; ptxas needs a few for any kernel.
inline constexpr int64_t kMinMaxNReg = 16;
inline constexpr int64_t kMaxMaxNReg = 255;
/// Threads per warp.
inline constexpr int64_t kWarpSize = 32;
/// Most bytes of shared memory one CTA may use: what sm_90 lets a kernel
/// opt in to (227 KiB). The compiler sizes workspaces and staged rings by
/// it; the runtime refuses a device that allows less, naming both.
inline constexpr int64_t kMaxSharedBytesPerCta = 227 * 1024;

/// The block size of a tunable tile when no config gives one (a kernel
/// without `config=`, `config=None`, or a config chosen by host code when
/// the file runs): Helion autotunes then; dslc compiles this value, which
/// keeps a 2-D tile and a matmul's staging small, and `tuner` searches.
inline constexpr int64_t kDefaultBlockSize = 64;

bool isValidBlockSize(int64_t blockSize);
bool isValidNumWarps(int64_t numWarps);

/// One value a config can set.
struct Tunable {
  enum class Kind {
    BlockSize,  ///< block_sizes[index]
    NumWarps,   ///< num_warps
    MaxCtas,    ///< the runtime's grid cap (0: none), applied at load
    Named,      ///< a tunable the kernel declares, by `name`
    NumStages,  ///< num_stages (matrix products' or loops' stages)
    DotEngine,  ///< dot_engine, as int(contract::DotEngine) (idem)
    L2Grouping, ///< l2_groupings[0] (a grid of 2 or more dimensions)
    /// reduction_loops[index] (a kernel that reduces whole rows): 0 for
    /// the row whole (or dslc's own chunks where it does not fit), else
    /// the chunk size
    ReductionLoop,
    /// fast_math: 1 approximates every f32 exp, log and division (Triton's
    /// ex2/lg2.approx and div.full), 0 only where a rounding to 16 bits
    /// follows (-dslc-narrowed-fast-math)
    FastMath,
    /// load_eviction_policies: one policy (int(EvictionPolicy)) for every
    /// load of the kernel, or for the one `load` names; `index` is how many
    /// loads it has
    LoadEviction,
  };
  Kind kind = Kind::NumWarps;
  /// BlockSize, ReductionLoop: which one; LoadEviction: the kernel's loads
  unsigned index = 0;
  std::string name; ///< Named
  /// LoadEviction: the load it hints (0-based, source order of the loads
  /// whose values the kernel uses); -1: every load (the metadata's form).
  int load = -1;
  int64_t value = 0; ///< the kernel's value (its default)
  /// Allowed values: `choices` when not empty, else [min, max].
  int64_t min = 0, max = 0;
  std::vector<int64_t> choices;
  /// BlockSize of a kernel's only block: the elements of its largest tile
  /// per unit of the block (a row of `x[rows, :]`: H; a 1-d tile: 1; 0:
  /// not known), so the tuner bounds tiles and elements per thread in
  /// elements, whatever the block counts.
  int64_t unitElements = 0;
  /// BlockSize: the size of the dimension it tiles at the shapes compiled
  /// for (--shape; 0: not known). The tuner tries blocks up to its power of
  /// two (a chunk loop over a whole row), beyond its usual steps around the
  /// default.
  int64_t extent = 0;
  /// BlockSize: the block of a dimension of the kernel's launch grid (its
  /// outermost hl.tile loop), not of a loop inside a CTA: the tuner sizes
  /// such blocks by the CTAs they make (a matrix product's M and N tiles).
  bool tilesGrid = false;

  static Tunable blockSize(unsigned index, int64_t value);
  static Tunable numWarps(int64_t value);
  static Tunable maxCtas(int64_t value);
  static Tunable named(std::string name, int64_t value,
                       std::vector<int64_t> choices);
  /// A matmul kernel's pipeline depth: 2, 3, 4, 5, 6 or 8 stages (or
  /// `value`).
  static Tunable numStages(int64_t value);
  /// The stages of a kernel's loops over a row's chunks: 1 (each iteration
  /// loads its own), 2 or 3 (loads one or two iterations ahead), or
  /// `value`.
  static Tunable loopStages(int64_t value);
  /// A matmul kernel's engine: the tensor-core ones, mma_sync and wgmma
  /// (and `value`, e.g. fma when the config chose it).
  static Tunable dotEngine(int64_t value);
  /// The grid's tile order: groups of 1 (row-major), 4, 8 or 16 rows of
  /// tiles (or `value`).
  static Tunable l2Grouping(int64_t value);
  /// The chunks of the `index`-th reduced dimension, of `extent` columns:
  /// whole (0: dslc rolls a row of more than 64 elements a thread into its
  /// own chunks) or a half, a quarter or an eighth of it, each at least
  /// kMinReductionChunk, and where one of those is, `extent` itself (the
  /// row held whole, never rolled) (or `value`).
  static Tunable reductionLoop(unsigned index, int64_t value, int64_t extent);
  /// A kernel with f32 exps, logs or divisions: 0 or 1 (fast_math).
  static Tunable fastMath(int64_t value);
  /// The `loads` loads of a kernel under one eviction policy: none, first
  /// or last (int(EvictionPolicy); `value` the config's where all its
  /// loads share one, else 0).
  static Tunable loadEviction(unsigned loads, int64_t value);
  /// The policy of load `load` of `loads` alone (the tuner's per-load
  /// dimensions: contract::SpaceDimension::searchOnly).
  static Tunable loadEvictionOf(unsigned loads, int load, int64_t value);

  /// "block_sizes[0]", "num_warps", "max_ctas", "num_stages",
  /// "dot_engine", "l2_groupings", "reduction_loops[0]", "fast_math",
  /// "load_eviction_policies" or the name (messages).
  std::string label() const;
  /// Whether `v` is allowed; otherwise the failure names the tunable and
  /// its range.
  Expected<bool> check(int64_t v) const;
  /// Same tunable (kind, index, name), whatever the values.
  bool sameSlot(const Tunable &o) const {
    return kind == o.kind && index == o.index && name == o.name;
  }
};

const char *tunableKindName(Tunable::Kind kind);
std::optional<Tunable::Kind> parseTunableKind(const std::string &name);

/// A kernel configuration: what dslc's --config and a decorator's
/// helion.Config(...) take (block_sizes, num_warps, reduction_loops, named
/// tunables) plus the runtime's grid cap (max_ctas).
/// What computes a kernel's matrix products (config key `dot_engine`):
/// the compiler's choice, f32 FMAs on CUDA cores, or tensor cores where a
/// dot's types and shape allow: mma.sync (sm_80 on), or Hopper's
/// warpgroup wgmma (sm_90) where a software-pipelined loop feeds it, else
/// mma.sync.
enum class DotEngine { Default, Fma, MmaSync, Wgmma };
/// "fma", "mma_sync", "wgmma" ("default" for Default).
const char *dotEngineName(DotEngine engine);
/// The engine a config spells `name`; none for anything else.
std::optional<DotEngine> parseDotEngine(const std::string &name);
/// The stages of a loop without matrix products when the config does not
/// say: its loads issued one iteration ahead (-dslc-prefetch-loads; 1: none).
inline constexpr int64_t kDefaultLoopStages = 2;
/// The stages a tensor-core loop keeps in flight when the config does not
/// say: Triton's default num_stages (3), but 4 on wgmma, whose loop ran
/// ~15% faster with 4 than with 3 at 128x256x64 on an H100 and an H200
/// (docs/measurements.md, 2026-12-05). A ring that does not fit shared
/// memory gets fewer (-dslc-pipeline-dots).
constexpr int64_t defaultNumStages(DotEngine engine) {
  return engine == DotEngine::Wgmma ? 4 : 3;
}
/// The l2_groupings of a grid of two or more dimensions whose products run
/// on tensor cores, when the config does not say: groups of 16 rows of
/// tiles, whose operand panels stay in L2 while the group's columns are
/// computed. At 4096^3 and 8192^3 bf16 on wgmma 128x256x64, in one run on
/// an H200: row-major 0.878x / 0.826x of cuBLAS, groups of 8 (Triton's
/// tutorial GROUP_SIZE_M) 0.885x / 0.872x, groups of 16 0.900x / 0.889x;
/// on an H100 16 beat 8 by 8% / 4% (docs/measurements.md, 2026-12-06).
/// 1 (row major) on CUDA cores.
constexpr int64_t defaultL2Grouping(DotEngine engine) {
  return engine == DotEngine::Fma ? 1 : 16;
}

/// How a load keeps the lines it reads in L1 and L2 (Helion's
/// load_eviction_policies "", "first", "last"; hl.load's eviction_policy=
/// "evict_first", "evict_last"): as Triton does, an L1 eviction priority
/// and an L2 policy (createpolicy.fractional) of the same name. A hint: the
/// values read are the same.
enum class EvictionPolicy { Normal, First, Last };
/// "", "first", "last": a config's spelling.
const char *evictionPolicyName(EvictionPolicy policy);
/// A config's entry ("", "first" or "last"); none for anything else.
std::optional<EvictionPolicy> parseEvictionPolicy(const std::string &name);

struct KernelConfig {
  std::vector<int64_t> blockSizes;
  int64_t numWarps = 0; ///< 0: the kernel's default
  int64_t maxCtas = 0;  ///< 0: no cap
  std::map<std::string, int64_t> named;
  /// Helion's reduction_loops: per whole-row dimension (in the order the
  /// kernel meets them) a chunk size, or 0 (None) to keep the row whole.
  std::vector<int64_t> reductionLoops;
  DotEngine dotEngine = DotEngine::Default;
  /// num_stages: how many K steps a tensor-core matmul loop keeps in flight
  /// (operands copied ahead into shared memory; 1: none); 0: the
  /// compiler's default.
  int64_t numStages = 0;
  /// Helion's l2_groupings: the grid's tiles run in groups of this many
  /// rows (indices along its first dimension), each group column by column,
  /// so that CTAs running at once share operand panels in L2 (Triton's
  /// GROUP_SIZE_M); 0 or 1: row-major.
  int64_t l2Grouping = 0;
  /// fast_math: 1 computes every f32 exp, exp2, log, log2 and division
  /// with the approximate instructions Triton uses (ex2.approx, lg2.approx,
  /// div.full: a few ulp, more for exp of large arguments); 0 (the
  /// default) keeps them correctly rounded where the result stays f32.
  int64_t fastMath = 0;
  /// Helion's load_eviction_policies: entry i is the policy of the
  /// kernel's i-th load in source order (hl.load or a subscript read; an
  /// hl.load's own eviction_policy= wins); loads past the list's end get
  /// none.
  std::vector<EvictionPolicy> loadEvictionPolicies;
  /// Helion's maxnreg: ptxas keeps every thread within this many registers
  /// (PTX .maxnreg; more CTAs an SM, or spills); 0: ptxas's choice.
  int64_t maxNReg = 0;

  /// The value `t` has in this config (0 when unset).
  int64_t get(const Tunable &t) const;
  /// Sets the value of `t` (block sizes grow as needed, new slots 0).
  void set(const Tunable &t, int64_t value);

  /// {"block_sizes":[...],"num_warps":N,"reduction_loops":[...],
  /// "max_ctas":M,"tunables":{...}} (keys left out when unset). `forCompiler`
  /// leaves max_ctas out (dslc ignores it with a warning: the cap is applied by
  /// the runtime at load).
  std::string toJson(bool forCompiler = false) const;
  /// Parses that form and validates every value: readConfig() without its
  /// list of ignored keys.
  static Expected<KernelConfig> fromJson(const std::string &text);
  /// "bs=1024 w=4 ctas=16" (for tables and logs).
  std::string brief() const;

  /// Every field, in one order: what equality and ordering compare (a
  /// field added to the config is added here once).
  auto fields() const {
    return std::tie(blockSizes, numWarps, maxCtas, named, reductionLoops,
                    dotEngine, numStages, l2Grouping, fastMath,
                    loadEvictionPolicies, maxNReg);
  }
  bool operator==(const KernelConfig &o) const {
    return fields() == o.fields();
  }
  bool operator<(const KernelConfig &o) const { return fields() < o.fields(); }
};

/// The one validation of a config: every block size in 1..kMaxBlockSize,
/// num_warps 0 (default) or in 1..kMaxNumWarps, max_ctas >= 0, every
/// reduction_loops entry 0 (None) or a chunk in 1..kMaxBlockSize, num_stages
/// 0 (default) or in 1..kMaxNumStages, l2_groupings 0 or 1..kMaxL2Grouping,
/// fast_math 0 or 1, at most kMaxLoads load_eviction_policies, maxnreg 0
/// or in kMinMaxNReg..kMaxMaxNReg.
Expected<bool> validate(const KernelConfig &config);

/// What a key of a config object is to dslc. One policy for every reader
/// (helion.Config(...) in a decorator, --config, tuning records, metadata):
/// keys dslc honours are read, Helion's keys that tune only Triton's code
/// generation are accepted and reported as ignored, anything else is an
/// error naming the key.
enum class ConfigKey {
  BlockSizes,           ///< block_sizes (the compiler)
  NumWarps,             ///< num_warps (the compiler)
  ReductionLoops,       ///< reduction_loops (the compiler)
  DotEngine,            ///< dot_engine (the compiler)
  NumStages,            ///< num_stages (the compiler)
  L2Groupings,          ///< l2_groupings (the compiler)
  FastMath,             ///< fast_math (the compiler)
  LoadEvictionPolicies, ///< load_eviction_policies (the compiler)
  MaxNReg,              ///< maxnreg (the compiler: ptxas)
  MaxCtas,              ///< max_ctas (the runtime, at load)
  Tunables,             ///< tunables: named values the tuner searches
  HelionOnly,           ///< a helion.Config key for Triton only (indexing, ...)
  Unknown,
};
ConfigKey classifyConfigKey(const std::string &key);
/// The keys dslc honours, for messages: "block_sizes, num_warps, ...".
std::string honouredConfigKeys();

/// A config as read: the values, every key present (in the order
/// written) and those of them dslc accepts but does not act on
/// (HelionOnly).
struct ConfigReading {
  KernelConfig config;
  std::vector<std::string> keys;
  std::vector<std::string> ignoredKeys;

  bool has(const std::string &key) const {
    for (const std::string &k : keys)
      if (k == key)
        return true;
    return false;
  }
};
/// The one reader of a config object's JSON text. Messages name the key
/// ("num_warps 64 is outside 1..32", "unknown config key 'x' ...").
Expected<ConfigReading> readConfig(const std::string &text);

} // namespace dslc::contract

#endif // DSLC_CONTRACT_KERNELCONFIG_H
