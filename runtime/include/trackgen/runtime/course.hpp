// Course: a batch of E race courses and everything a simulation loop needs
// from them every step, on one execution-space instance.
//
// In track mode a Course owns a TrackGenerator and the helpers its config asks for:
// checkpoints along every centerline (CheckpointSampler) and a ProgressTracker
// over them, optionally a CollisionChecker (segments or sdf), a
// TrackLocalizer, a curvature and speed profile, a height field. Everything is
// allocated and filled at construction (capacities come from the config, not
// from the first batch, so every later batch fits and a regenerated env equals
// a fresh Course built at its seed).
//
// The loop:
//   course.bind(position, orientation, half_extents);   // your [E] / [E*B] state Views, once
//   for (...) {
//     your_agent_kernel(...);                           // moves the agents
//     const auto& r = course.step();                    // progress, collision, localization
//     your_reward_kernel(r.events, r.contacts, done);   // e.g. done = collision | lap | timeout
//     course.regenerate(done, /*advance=*/true);        // new tracks for finished envs only
//   }
//
// step() and regenerate() run through GraphRunners like the generator: by
// default the Course's own graphs (recorded on first use, replayed after; one
// per mask View for regenerate), Policy::eager runs them directly, and
// step(ctx) / regenerate(ctx, ...) record into a caller's capture. Nothing on
// these paths allocates or waits for the device; results are bitwise the same
// on every path, on Serial and OpenMP at any thread count.
//
// regenerate(mask, advance) regenerates the masked envs through the
// generator's masked path (their epochs advanced first when asked) and
// refreshes only their helpers: checkpoints, sdf, height field, curvature and
// speed, progress and localizer state. Every other env stays bit-identical, and
// with an all-zero mask the refresh is skipped on the device.
//
// In gates mode (docs/algorithms.md#course-gates-mode) it owns a GateGenerator:
// the gates are the checkpoints (CheckpointSet::from_gates, aliased), a
// CourseLine through the gate centres is the track the TrackLocalizer follows
// (always on), and the obstacles are the gate posts (a DiscChecker on every
// gate's two ends, post_radius > 0) or the gate frames (a FrameChecker for a
// sphere at the agent position around the progress target, frame_collision).
// track() and generate() then return the course line; gates() the gates. A
// refresh rewrites the course line and the posts of the masked envs and resets
// their progress and localizer state.
#pragma once

#include <trackgen/exec/graph_runner.hpp>
#include <trackgen/pipeline/gate_generator.hpp>
#include <trackgen/pipeline/track_generator.hpp>
#include <trackgen/runtime/checkpoints.hpp>
#include <trackgen/runtime/collision.hpp>
#include <trackgen/runtime/course_config.hpp>
#include <trackgen/runtime/course_line.hpp>
#include <trackgen/runtime/disc_checker.hpp>
#include <trackgen/runtime/frame_checker.hpp>
#include <trackgen/runtime/heightfield.hpp>
#include <trackgen/runtime/localizer.hpp>
#include <trackgen/runtime/progress.hpp>

#include <map>
#include <optional>

namespace trackgen {

/// What step() returns (the same object every call; its Views are overwritten
/// in place). contacts, posts, frames and frame are empty Views when the
/// Course has no collision backend, no gate posts, no frame collision or does
/// not localize.
template <class Space = Kokkos::DefaultExecutionSpace>
struct StepResult {
  ProgressEvents<Space> events;
  BoxContact<Space> contacts;  ///< track mode: the boxes against the borders
  DiscContact<Space> posts;    ///< gates mode: the boxes against the gate posts (gate = disc / 2)
  FrameContact<Space> frames;  ///< gates mode: the agent sphere against the gate frames
  TrackFrame<Space> frame;

  /// Whether the Course checks collision (contacts holds Views).
  bool has_contacts() const { return contacts.oob.data() != nullptr; }
  /// Whether the Course checks the gate posts (posts holds Views).
  bool has_posts() const { return posts.hit.data() != nullptr; }
  /// Whether the Course checks the gate frames (frames holds Views).
  bool has_frames() const { return frames.hit.data() != nullptr; }
  /// Whether the Course localizes (frame holds Views).
  bool has_frame() const { return frame.s.data() != nullptr; }
  /// An independent deep copy.
  StepResult clone() const;
};

template <class Space = Kokkos::DefaultExecutionSpace>
class Course {
 public:
  using track_type = Track<typename Space::memory_space>;
  using sequence_type = GateSequence<typename Space::memory_space>;
  using IntView = DView<std::int32_t, Space>;
  using FloatView = DView<float, Space>;
  using Vec3View = DView<Vec3f, Space>;
  using QuatView = DView<Quatf, Space>;
  using Vec2View = DView<Vec2f, Space>;

  /// A Course of `config` (validated first: ConfigError naming the field) on
  /// `space`, with its own seeds (config.seed expanded per env).
  Course(Space space, const CourseConfig& config);
  /// Same, reading the base seeds from the caller's [E] int32 View `seeds`
  /// (bound: read at every generation, never written).
  Course(Space space, const CourseConfig& config, const IntView& seeds);
  /// A Course on a default instance of Space.
  explicit Course(const CourseConfig& config) : Course(Space(), config) {}

  Course(const Course&) = delete;
  Course& operator=(const Course&) = delete;

  /// Binds the agents' state read by every step(): `position` [E] (the agent,
  /// tracked through the checkpoints and localized; with frame collision the
  /// sphere's centre); with a collision backend or gate posts also
  /// `orientation` and `half_extents` [E*B] (B = max_boxes), and for B > 1
  /// `box_position` [E*B] (for B = 1 the agent position is the box's).
  /// ConfigError for a missing, superfluous or mis-sized View. Rebinding other
  /// Views re-records the Course's own step graph; when a caller's capture
  /// recorded step(ctx) it keeps reading the previous Views, which logs a
  /// warning (record it again).
  void bind(const Vec3View& position, const QuatView& orientation = QuatView(),
            const Vec2View& half_extents = Vec2View(), const Vec3View& box_position = Vec3View());

  /// Generates the whole batch from the current seeds and epochs and refreshes
  /// every helper (progress and localizer restart). Returns track() (the
  /// same object every call).
  const track_type& generate();
  /// Same on `ctx` (recorded when ctx records).
  const track_type& generate(const LaunchContext<Space>& ctx);
  /// Reseeds the Course's own seeds with base seed `k` (expanded per env as
  /// at construction; epochs back to 0), then generate(). ConfigError for a
  /// Course reading a caller's seed View (write that View instead).
  const track_type& generate(std::int32_t k);

  /// Tracks progress, checks collision and localizes (as configured) for the
  /// bound agents; returns the result (the same object every call).
  /// ConfigError before bind().
  const StepResult<Space>& step();
  /// Same on `ctx` (recorded when ctx records).
  const StepResult<Space>& step(const LaunchContext<Space>& ctx);

  /// Restarts progress (and the warm localizer state) of the envs with
  /// mask[e] != 0, e.g. after teleporting their agents.
  void reset(const IntView& mask);
  /// Same on `ctx`.
  void reset(const LaunchContext<Space>& ctx, const IntView& mask);

  /// Regenerates the envs with mask[e] != 0 ([E] int32), advancing their
  /// epochs first when `advance`, and refreshes their helpers; every other env
  /// stays bit-identical. One own graph is kept per (mask View, advance).
  const track_type& regenerate(const IntView& mask, bool advance);
  /// Same on `ctx` (recorded when ctx records).
  const track_type& regenerate(const LaunchContext<Space>& ctx, const IntView& mask, bool advance);

  /// The validated config.
  const CourseConfig& config() const { return config_; }
  /// The Track: the generator's in track mode, the course line in gates mode
  /// (the same object, stable Views, for the Course's life).
  const track_type& track() const;
  /// The track generator (its seeds, epochs, policy, runner); ConfigError in gates mode.
  TrackGenerator<Space>& generator();
  /// The gate generator; ConfigError in track mode.
  GateGenerator<Space>& gate_generator();
  /// The gates (gates mode); ConfigError in track mode.
  const sequence_type& gates() const;
  /// The course line through the gates, or nullptr in track mode.
  const CourseLine<Space>* course_line() const { return course_line_ ? &*course_line_ : nullptr; }
  /// The seeds and epochs of the generations.
  const SeedState<Space>& seeds();
  /// The checkpoint sampler (its truncation flags and steps); ConfigError in
  /// gates mode (the gates are the checkpoints).
  const CheckpointSampler<Space>& checkpoint_sampler() const;
  /// The checkpoints of every env (in gates mode the gates' fields, aliased).
  const CheckpointSet<Space>& checkpoints() const { return checkpoint_set_; }
  /// The progress tracker (its live state).
  const ProgressTracker<Space>& progress() const { return *progress_; }
  /// The collision checker, or nullptr without a collision backend.
  const CollisionChecker<Space>* collision() const { return collision_ ? &*collision_ : nullptr; }
  /// The gate posts' checker, or nullptr without posts.
  const DiscChecker<Space>* posts() const { return posts_ ? &*posts_ : nullptr; }
  /// The gate frames' checker, or nullptr without frame collision.
  const FrameChecker<Space>* frames() const { return frames_ ? &*frames_ : nullptr; }
  /// The localizer, or nullptr unless config.localize or gates mode.
  const TrackLocalizer<Space>* localizer() const { return localizer_ ? &*localizer_ : nullptr; }
  /// The height field, or nullptr without heightfield_resolution.
  const HeightField<Space>* heightfield() const { return heightfield_ ? &heightfield_->heightfield() : nullptr; }
  /// [E*N_max] curvature of every track point (empty without speed_limits).
  const FloatView& curvature() const { return curvature_; }
  /// [E*N_max] speed profile of every track point (empty without speed_limits).
  const FloatView& speed() const { return speed_; }
  /// The result of the last step().
  const StepResult<Space>& result() const { return result_; }
  /// Envs E.
  int num_envs() const { return config_.num_envs(); }
  /// The execution-space instance of the calls without a context.
  const Space& space() const { return ctx_.space(); }

  /// Execution policy of step() and the generations (default Policy::automatic).
  Policy policy() const { return policy_; }
  /// Sets the execution policy of step() and the generations.
  void set_policy(Policy p) { policy_ = p; }
  /// The runner of the generations' refreshes and the masked regenerations.
  const GraphRunner<Space>& generation_runner() const { return generation_runner_; }
  /// The runner of step().
  const GraphRunner<Space>& step_runner() const { return step_runner_; }
  /// Whether the whole Course may be recorded into a caller's capture (the
  /// generator has no HOST stage).
  bool capturable() const { return generator_ ? generator_->capturable() : gate_generator_->capturable(); }

 private:
  Course(Space space, const CourseConfig& config, SeedState<Space> seeds);
  bool gates_mode() const { return config_.mode == CourseMode::gates; }
  const std::string& generator_name() const;
  void build_helpers();
  void build_gate_helpers();
  bool checks_boxes() const { return collision_.has_value() || posts_.has_value(); }
  void enqueue_generate(const LaunchContext<Space>& ctx, const IntView& mask, bool advance);
  void enqueue_refresh(const LaunchContext<Space>& ctx, const IntView& mask);
  void add_box_stages(Program<Space>& p);
  BufferRef refreshed() const;  // the refresh's first output: checkpoints or course line
  Program<Space> make_refresh_program();
  Program<Space> make_regenerate_program(const IntView& mask, bool advance);
  Program<Space> make_step_program();

  CourseConfig config_;
  LaunchContext<Space> ctx_;
  std::optional<TrackGenerator<Space>> generator_;      // track mode
  std::optional<GateGenerator<Space>> gate_generator_;  // gates mode
  std::optional<CheckpointSampler<Space>> checkpoints_;  // track mode
  std::optional<CourseLine<Space>> course_line_;         // gates mode
  CheckpointSet<Space> checkpoint_set_;                  // the sampler's, or the gates' (aliased)
  std::optional<ProgressTracker<Space>> progress_;
  std::optional<CollisionChecker<Space>> collision_;
  std::optional<DiscChecker<Space>> posts_;
  Vec3View post_positions_;  // [E*2G] the posts' discs
  std::optional<FrameChecker<Space>> frames_;
  std::optional<TrackLocalizer<Space>> localizer_;
  std::optional<HeightFieldBaker<Space>> heightfield_;
  FloatView curvature_, speed_;
  IntView any_flag_;  // [1] some env is masked (the refresh's skip flag)
  IntView reseed_;    // [E] staging of generate(k)
  StepResult<Space> result_;
  Vec3View position_, box_position_;
  QuatView orientation_;
  Vec2View half_extents_;
  bool bound_ = false;
  bool step_recorded_ = false;  // a caller's capture recorded step(ctx) since the last bind
  Program<Space> refresh_program_;
  std::map<GraphKey, Program<Space>> regenerate_programs_;  // per (mask View, advance)
  Program<Space> step_program_;
  GraphRunner<Space> generation_runner_;
  GraphRunner<Space> step_runner_;
  Policy policy_ = Policy::automatic;
};

/// Bytes a Course<Space> of `config` (validated) allocates: its generator
/// (estimate_memory, or estimate_gate_memory in gates mode), its seeds and
/// flags, and every helper the config asks for: checkpoints, progress, the
/// collision contacts and sdf grids, the localizer, the height field, the
/// speed profile; in gates mode the course line, the posts and the frame
/// contacts. Within 1% of what a constructed Course allocates (tested).
template <class Space = Kokkos::DefaultExecutionSpace>
std::size_t estimate_course_memory(const CourseConfig& config);

/// The largest number of envs (gen.num_envs, or gate_gen.num_envs in gates
/// mode; at most 2^20) for which a Course of `config` is estimated within
/// `limit` bytes; 0 when not even one env fits.
template <class Space = Kokkos::DefaultExecutionSpace>
int max_course_envs_within(const CourseConfig& config, std::size_t limit);

/// Throws ConfigError naming `api`, the estimate, the limit and how many envs
/// would fit when the estimate of a Course of `config` exceeds `limit` (0: no
/// limit). The Course's constructors call it with memory_limit_bytes() after
/// validating the config, before allocating anything.
template <class Space = Kokkos::DefaultExecutionSpace>
void check_course_memory(const CourseConfig& config, std::size_t limit, const std::string& api);

}  // namespace trackgen
