// Producer: the skeleton the batch producers share (TrackGenerator,
// GateGenerator; docs/design.md#producers). A producer owns a config, an
// execution-space instance, its SeedState and [E] effective-seed buffer, a
// Program of two stages (seeds -> body) and the GraphRunner that runs it, and
// offers the same generate() overloads: the whole batch, on a caller's
// context (recording into its capture), masked regeneration with epochs, and
// the batch-size check. A producer derives from
// Producer<Derived, Space, Config, Output> and provides
//
//   static constexpr const char* kind;    // "TrackGenerator": names, regions, messages
//   Stage<Space> body_stage();            // the body of a full generation (its id,
//                                         // capture class, writes; enqueue)
//   std::vector<BufferRef> masked_writes();  // what the masked body writes
//   void enqueue_body(const LaunchContext<Space>& ctx);  // the body's work
//   const Output& output() const;         // the same object every call
//
// and may hide `before_generate()` (runs before every generate()),
// `after_run(ctx)` (after a run that did not record into a capture; the only
// place a host read may follow the program) and `make_masked_program(mask,
// advance)` (the default reruns the whole body on the envs' effective seeds
// under a device-side "any env masked" flag, which rewrites unmasked envs
// with their own bits). Its constructor ends with start(), which builds the
// program and runs the warm-up pass.
//
// DistributedBatch (mpi/) wraps a TrackGenerator per rank and shares the types
// (ProducerTypes).
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/seeds.hpp>
#include <trackgen/exec/graph_runner.hpp>
#include <trackgen/exec/ops.hpp>
#include <trackgen/exec/program.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trackgen {

/// The types of a producer of `Output` batches on `Space`.
template <class Space, class Output>
struct ProducerTypes {
  using execution_space = Space;
  using IntView = DView<std::int32_t, Space>;
  using output_type = Output;
};

template <class Derived, class Space, class Config, class Output>
class Producer : public ProducerTypes<Space, Output> {
 public:
  using IntView = typename ProducerTypes<Space, Output>::IntView;

  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  /// Generates the whole batch and returns the (same) output. Repeated calls
  /// with unchanged seeds return the identical batch.
  const Output& generate() { return generate(ctx_); }

  /// Generates on `ctx`: records into it when it is a caller's capture
  /// (NotCapturableError before any work if a stage is HOST), otherwise runs
  /// under the producer's policy on ctx's instance.
  const Output& generate(const LaunchContext<Space>& ctx) {
    derived().before_generate();
    return run(program_, ctx, std::nullopt);
  }

  /// Regenerates only the envs with mask[e] != 0 ([E] int32 View), advancing
  /// their epochs first when `advance`; all other envs stay bit-identical. The
  /// body is skipped on the device when the mask is all zero. One self-graph
  /// is cached per (mask pointer, advance).
  const Output& generate(const IntView& mask, bool advance = false) { return generate(ctx_, mask, advance); }

  /// Masked regeneration on `ctx`: records into it when it is a caller's
  /// capture, otherwise runs under the producer's policy on ctx's instance.
  const Output& generate(const LaunchContext<Space>& ctx, const IntView& mask, bool advance = false) {
    seeds_.check_mask(mask);
    const GraphKey key{reinterpret_cast<std::uintptr_t>(mask.data()), advance ? 1u : 0u};
    derived().before_generate();
    return run(derived().make_masked_program(mask, advance), ctx, key);
  }

  /// As generate(); ConfigError unless `num_envs == config().num_envs`.
  const Output& generate(int num_envs) {
    if (num_envs != config_.num_envs) {
      throw ConfigError(std::string("trackgen::") + Derived::kind +
                        "::generate: num_envs = " + std::to_string(num_envs) +
                        " differs from config.num_envs = " + std::to_string(config_.num_envs) +
                        " (the batch is fixed at construction; build another " + Derived::kind + " for another size)");
    }
    return generate();
  }

  /// The validated config the producer was built for.
  const Config& config() const { return config_; }
  /// The execution-space instance of every allocation and launch.
  const Space& space() const { return ctx_.space(); }
  /// Whether the whole program may be recorded into a caller's capture (no HOST stage).
  bool capturable() const { return program_.capturable(); }
  /// Execution policy of generate() (default Policy::automatic: self-graph replay).
  Policy policy() const { return policy_; }
  void set_policy(Policy p) { policy_ = p; }
  /// The producer's runner (its self-graphs, keys, ...).
  const GraphRunner<Space>& runner() const { return runner_; }
  /// The producer's program: its stages in order.
  const Program<Space>& program() const { return program_; }

 protected:
  /// Takes `check(config, seeds.num_envs())`: the producer's validation of
  /// the config for that many seeds, which throws before anything is
  /// allocated and returns the config to keep. Then allocates the [E]
  /// effective-seed buffer and the [1] "any env masked" flag, labelled
  /// "TrackGen::<module>::seed_buf" and "...::mask_any". `runner_name` labels
  /// the runner's messages.
  Producer(const Space& space, const Config& config, SeedState<Space> seeds,
           Config (*check)(const Config&, std::size_t seed_envs), const char* module, std::string runner_name)
      : config_(check(config, static_cast<std::size_t>(seeds.num_envs()))),
        ctx_(space),
        seeds_(std::move(seeds)),
        seed_buf_(Kokkos::view_alloc(ctx_.space(), label(module, "seed_buf")),
                  static_cast<std::size_t>(config_.num_envs)),
        any_flag_(Kokkos::view_alloc(ctx_.space(), label(module, "mask_any")), 1),
        runner_(std::move(runner_name)) {}

  ~Producer() = default;

  /// Builds the program and runs the warm-up pass (GraphRunner::prepare), so
  /// the output holds the batch of the initial seeds: the last step of the
  /// derived constructor, once everything the body uses is allocated.
  void start() {
    program_ = make_program();
    runner_.prepare(program_, ctx_);
  }

  /// The program of a full generation: effective seeds, then the body.
  Program<Space> make_program() {
    Program<Space> p(std::string(Derived::kind) + ":" + config_.generator);
    Stage<Space> seeds;
    seeds.id = "seeds";
    seeds.reads = {buffer("seeds", seeds_.seeds()), buffer("epoch", seeds_.epoch())};
    seeds.writes = {buffer("seed_buf", seed_buf_)};
    seeds.enqueue = [this](const LaunchContext<Space>& ctx) { seeds_.effective(ctx, seed_buf_); };
    p.add(std::move(seeds));
    p.add(derived().body_stage());
    return p;
  }

  /// The default masked program: the masked envs' epochs advanced (when
  /// asked) and the flag raised when any env is masked; then, unless the flag
  /// is down, the masked envs' effective seeds and the whole body. Unmasked
  /// envs keep the effective seed their output was built from, so the body
  /// rewrites them bit-identically.
  Program<Space> make_masked_program(const IntView& mask, bool advance) {
    Program<Space> p(std::string(Derived::kind) + ":" + config_.generator + ":masked");
    p.add(mask_stage(mask, advance,
                     [this](const LaunchContext<Space>& ctx, const IntView& m) { ops::any_set(ctx, m, any_flag_); }));
    Stage<Space> body = derived().body_stage();
    body.reads = {buffer("mask", mask), buffer("mask_any", any_flag_)};
    body.writes = derived().masked_writes();
    body.enqueue = [this, mask](const LaunchContext<Space>& ctx) {
      ctx.skip_unless(any_flag_, [&](const LaunchContext<Space>& c) {
        seeds_.effective(c, seed_buf_, mask);
        derived().enqueue_body(c);
      });
    };
    p.add(std::move(body));
    return p;
  }

  /// The first stage of a masked program: advances the masked envs' epochs
  /// when `advance`, then `select(ctx, mask)` (what the body's skip reads).
  template <class Select>
  Stage<Space> mask_stage(const IntView& mask, bool advance, Select select) {
    Stage<Space> sel;
    sel.id = "mask";
    sel.reads = {buffer("mask", mask)};
    sel.writes = {buffer("epoch", seeds_.epoch()), buffer("mask_any", any_flag_)};
    sel.enqueue = [this, mask, advance, select](const LaunchContext<Space>& ctx) {
      if (advance) seeds_.advance(ctx, mask);
      select(ctx, mask);
    };
    return sel;
  }

  /// Runs `program` on `ctx` under the policy (refusing a capture before any
  /// work, the region included), then after_run unless it recorded.
  const Output& run(const Program<Space>& program, const LaunchContext<Space>& ctx, std::optional<GraphKey> key) {
    runner_.check_record(program, ctx);
    const auto region = ctx.region(std::string("TrackGen::") + Derived::kind + "::generate");
    const typename GraphRunner<Space>::SerialScope serial;
    runner_.run(program, ctx, {policy_, std::move(key), false});
    derived().after_run(ctx);
    return derived().output();
  }

  /// Hooks a producer may hide (see the file comment).
  void before_generate() {}
  void after_run(const LaunchContext<Space>&) {}

  /// Bytes of device memory of the skeleton's own buffers.
  std::size_t skeleton_bytes() const { return view_bytes(seed_buf_) + view_bytes(any_flag_); }

  Config config_;
  LaunchContext<Space> ctx_;
  SeedState<Space> seeds_;
  IntView seed_buf_;  ///< [E] effective seeds of the batch being generated
  IntView any_flag_;  ///< [1] whether any env is masked (masked programs)
  Program<Space> program_;
  GraphRunner<Space> runner_;
  Policy policy_ = Policy::automatic;

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }
};

}  // namespace trackgen
