// Course (see course.hpp).
#include <trackgen/exec/ops.hpp>
#include <trackgen/pipeline/memory.hpp>
#include <trackgen/runtime/course.hpp>
#include <trackgen/runtime/detail/common.hpp>
#include <trackgen/runtime/detail/polyline.hpp>

#include <cstdio>

namespace trackgen {
namespace {

const std::string course_api = "trackgen::Course";

/// Validates `config` against the generators its mode may use, then checks
/// its memory estimate against the limit (nothing is allocated yet).
template <class Space>
void validate_config(const CourseConfig& config) {
  config.validate(config.mode == CourseMode::gates ? available_gate_generators<Space>() : available_generators<Space>());
  check_course_memory<Space>(config, memory_limit_bytes(), course_api);
}

/// The Course's own seeds, after validating `config` (nothing is allocated
/// when it throws).
template <class Space>
SeedState<Space> owned_seeds(const Space& space, const CourseConfig& config) {
  validate_config<Space>(config);
  return SeedState<Space>(space, config.num_envs(), config.seed, config.seed_expansion);
}

/// The caller's seed View bound, after validating `config` and its extent.
template <class Space>
SeedState<Space> bound_seeds(const Space& space, const CourseConfig& config, const DView<std::int32_t, Space>& seeds) {
  validate_config<Space>(config);
  check_extent(course_api, "seeds", seeds, static_cast<std::size_t>(config.num_envs()),
               config.mode == CourseMode::gates ? "gate_gen.num_envs" : "gen.num_envs");
  return SeedState<Space>(space, seeds, /*copy=*/false);
}

/// The checkpoint capacity: max_checkpoints, or room for the longest track the
/// generator can produce (N_max points at its spacing).
int checkpoint_capacity(const CourseConfig& c) {
  if (c.max_checkpoints) return *c.max_checkpoints;
  return detail::sampler_capacity(course_api, c.gen.N_max, c.gen.resolved_spacing(), *c.checkpoint_spacing);
}

/// The capture class of a stage running `generator`'s whole program.
template <class Generator>
CaptureClass generation_capture(const Generator& generator) {
  CaptureClass c = CaptureClass::STATIC;
  for (std::size_t i = 0; i < generator.program().size(); ++i) {
    const CaptureClass s = generator.program().stage(i).capture;
    if (s == CaptureClass::HOST) return s;
    if (s == CaptureClass::BOUNDED) c = s;
  }
  return c;
}

template <class V>
bool same(const V& a, const V& b) {
  return a.data() == b.data();
}

}  // namespace

template <class Space>
StepResult<Space> StepResult<Space>::clone() const {
  StepResult c;
  c.events = events.clone();
  if (has_contacts()) c.contacts = contacts.clone();
  if (has_posts()) c.posts = posts.clone();
  if (has_frames()) c.frames = frames.clone();
  if (has_frame()) c.frame = frame.clone();
  return c;
}

template <class Space>
Course<Space>::Course(Space space, const CourseConfig& config) : Course(space, config, owned_seeds(space, config)) {}

template <class Space>
Course<Space>::Course(Space space, const CourseConfig& config, const IntView& seeds)
    : Course(space, config, bound_seeds(space, config, seeds)) {}

template <class Space>
Course<Space>::Course(Space space, const CourseConfig& config, SeedState<Space> seeds)
    : config_(config),
      ctx_(space),
      any_flag_(detail::runtime_view<std::int32_t>(space, "course_mask_any", 1)),
      reseed_(detail::runtime_view<std::int32_t>(space, "course_reseed", static_cast<std::size_t>(num_envs()))),
      generation_runner_("Course:" + generator_name()),
      step_runner_("Course:" + generator_name() + ":step") {
  if (gates_mode()) {
    gate_generator_.emplace(space, config_.gate_gen, std::move(seeds));
    build_gate_helpers();
  } else {
    generator_.emplace(space, config_.gen, std::move(seeds));
    checkpoints_.emplace(space, generator_->track(), *config_.checkpoint_spacing, checkpoint_capacity(config_));
    checkpoint_set_ = checkpoints_->checkpoints();
    progress_.emplace(space, checkpoint_set_);
    build_helpers();
  }
  result_.events = progress_->events();
  if (collision_) result_.contacts = collision_->contacts();
  if (posts_) result_.posts = posts_->contacts();
  if (frames_) result_.frames = frames_->contacts();
  if (localizer_) result_.frame = localizer_->frame();
  refresh_program_ = make_refresh_program();
  generation_runner_.prepare(refresh_program_, ctx_);
}

template <class Space>
const std::string& Course<Space>::generator_name() const {
  return gates_mode() ? config_.gate_gen.generator : config_.gen.generator;
}

template <class Space>
void Course<Space>::build_helpers() {
  const auto& space = ctx_.space();
  const auto& track = generator_->track();
  if (config_.collision) {
    collision_.emplace(space, track, config_.max_boxes, *config_.collision,
                       GridOptions{config_.sdf_resolution.value_or(128), config_.sdf_padding});
  }
  if (config_.localize) {
    std::optional<float> relock;
    if (config_.localize_window) relock = 2.0f * config_.gen.half_width;
    localizer_.emplace(space, track, config_.localize_window, relock);
  }
  if (config_.heightfield_resolution) {
    heightfield_.emplace(space, track, GridOptions{*config_.heightfield_resolution, config_.heightfield_padding});
  }
  if (config_.speed_limits) {
    curvature_ = detail::runtime_view<float>(space, "course_curvature", track.arclen.extent(0));
    speed_ = detail::runtime_view<float>(space, "course_speed", track.arclen.extent(0));
  }
}

template <class Space>
void Course<Space>::build_gate_helpers() {
  const auto& space = ctx_.space();
  const auto& gates = gate_generator_->gates();
  course_line_.emplace(space, gates, config_.samples_per_gate);
  checkpoint_set_ = CheckpointSet<Space>::from_gates(gates);
  progress_.emplace(space, checkpoint_set_);
  // A warm localizer relocks beyond two gate widths from the line.
  std::optional<float> relock;
  if (config_.localize_window) relock = 2.0f * config_.gate_gen.gate_width;
  localizer_.emplace(space, course_line_->line(), config_.localize_window, relock);
  if (config_.post_radius > 0.0f) {
    post_positions_ = detail::runtime_view<Vec3f>(space, "course_posts", 2 * gates.position.extent(0));
    gate_posts(ctx_, gates, post_positions_);  // NaN (no post) until the first generation
    posts_.emplace(space, post_positions_, config_.post_radius, config_.max_boxes, num_envs());
  }
  if (config_.frame_collision) {
    frames_.emplace(space, gates, config_.agent_radius, config_.frame_thickness, config_.frame_depth,
                    config_.frame_window);
    frames_->bind_window(progress_->next_checkpoint_state());
  }
}

template <class Space>
void Course<Space>::enqueue_generate(const LaunchContext<Space>& ctx, const IntView& mask, bool advance) {
  const bool masked = mask.data() != nullptr;
  if (gate_generator_) {
    masked ? (void)gate_generator_->generate(ctx, mask, advance) : (void)gate_generator_->generate(ctx);
  } else {
    masked ? (void)generator_->generate(ctx, mask, advance) : (void)generator_->generate(ctx);
  }
}

template <class Space>
void Course<Space>::enqueue_refresh(const LaunchContext<Space>& ctx, const IntView& mask) {
  if (gates_mode()) {
    course_line_->refresh(ctx, mask);
    if (posts_) gate_posts(ctx, gate_generator_->gates(), post_positions_, mask);
  } else {
    const auto& track = generator_->track();
    checkpoints_->sample(ctx, mask);
    if (collision_) collision_->bake(ctx, mask);
    if (heightfield_) heightfield_->bake(ctx, mask);
    if (config_.speed_limits) {
      compute_curvature(ctx, track, curvature_, config_.curvature_window.value_or(2), mask);
      compute_speed_profile(ctx, track, *config_.speed_limits, curvature_, speed_, mask);
    }
  }
  progress_->reset(ctx, mask);
  if (localizer_) localizer_->reset(ctx, mask);
}

template <class Space>
BufferRef Course<Space>::refreshed() const {
  if (gates_mode()) return buffer("course_line", course_line_->line().center);
  return buffer("checkpoint_position", checkpoint_set_.position);
}

template <class Space>
Program<Space> Course<Space>::make_refresh_program() {
  Program<Space> p("Course:" + generator_name() + ":refresh");
  Stage<Space> refresh;
  refresh.id = "refresh";
  refresh.writes = {refreshed(), buffer("progress_next", progress_->next_checkpoint_state())};
  refresh.enqueue = [this](const LaunchContext<Space>& ctx) { enqueue_refresh(ctx, IntView()); };
  p.add(std::move(refresh));
  return p;
}

template <class Space>
Program<Space> Course<Space>::make_regenerate_program(const IntView& mask, bool advance) {
  Program<Space> p("Course:" + generator_name() + ":regenerate");
  Stage<Space> gen;
  gen.id = "regenerate:" + generator_name();
  gen.capture = gates_mode() ? generation_capture(*gate_generator_) : generation_capture(*generator_);
  gen.reads = {buffer("mask", mask)};
  if (gates_mode()) {
    gen.writes = {buffer("gates", gates().position), buffer("valid", gates().valid)};
  } else {
    gen.writes = {buffer("center", generator_->track().center), buffer("valid", generator_->track().valid)};
  }
  gen.enqueue = [this, mask, advance](const LaunchContext<Space>& ctx) { enqueue_generate(ctx, mask, advance); };
  p.add(std::move(gen));
  Stage<Space> refresh;
  refresh.id = "refresh";
  refresh.reads = {buffer("mask", mask)};
  refresh.writes = {buffer("mask_any", any_flag_), refreshed(),
                    buffer("progress_next", progress_->next_checkpoint_state())};
  refresh.enqueue = [this, mask](const LaunchContext<Space>& ctx) {
    ops::any_set(ctx, mask, any_flag_);
    ctx.skip_unless(any_flag_, [&](const LaunchContext<Space>& c) { enqueue_refresh(c, mask); });
  };
  p.add(std::move(refresh));
  return p;
}

template <class Space>
Program<Space> Course<Space>::make_step_program() {
  Program<Space> p("Course:" + generator_name() + ":step");
  Stage<Space> progress;
  progress.id = "progress";
  progress.reads = {buffer("position", position_)};
  progress.writes = {buffer("passed", result_.events.passed), buffer("laps", result_.events.laps)};
  progress.enqueue = [this](const LaunchContext<Space>& ctx) { progress_->update(ctx, position_); };
  p.add(std::move(progress));
  add_box_stages(p);
  if (localizer_) {
    Stage<Space> localize;
    localize.id = "localize";
    localize.reads = {buffer("position", position_)};
    localize.writes = {buffer("s", result_.frame.s), buffer("segment", result_.frame.segment)};
    localize.enqueue = [this](const LaunchContext<Space>& ctx) { localizer_->query(ctx, position_); };
    p.add(std::move(localize));
  }
  return p;
}

template <class Space>
void Course<Space>::add_box_stages(Program<Space>& p) {
  const Vec3View box_position = config_.max_boxes > 1 ? box_position_ : position_;
  if (collision_) {
    Stage<Space> collision;
    collision.id = "collision";
    collision.reads = {buffer("box_position", box_position), buffer("orientation", orientation_)};
    collision.writes = {buffer("oob", result_.contacts.oob), buffer("distance", result_.contacts.distance)};
    collision.enqueue = [this, box_position](const LaunchContext<Space>& ctx) {
      collision_->query(ctx, box_position, orientation_, half_extents_);
    };
    p.add(std::move(collision));
  }
  if (posts_) {
    Stage<Space> posts;
    posts.id = "posts";
    posts.reads = {buffer("box_position", box_position), buffer("orientation", orientation_)};
    posts.writes = {buffer("post_hit", result_.posts.hit), buffer("post_depth", result_.posts.depth)};
    posts.enqueue = [this, box_position](const LaunchContext<Space>& ctx) {
      posts_->query(ctx, box_position, orientation_, half_extents_);
    };
    p.add(std::move(posts));
  }
  if (frames_) {
    Stage<Space> frames;
    frames.id = "frames";
    frames.reads = {buffer("position", position_), buffer("progress_next", progress_->next_checkpoint_state())};
    frames.writes = {buffer("frame_hit", result_.frames.hit), buffer("frame_depth", result_.frames.depth)};
    frames.enqueue = [this](const LaunchContext<Space>& ctx) { frames_->query(ctx); };
    p.add(std::move(frames));
  }
}

template <class Space>
void Course<Space>::bind(const Vec3View& position, const QuatView& orientation, const Vec2View& half_extents,
                         const Vec3View& box_position) {
  const std::string api = course_api + "::bind";
  const std::size_t E = static_cast<std::size_t>(num_envs()), boxes = E * config_.max_boxes;
  check_extent(api, "position", position, E, "E");
  if (checks_boxes()) {
    check_extent(api, "orientation", orientation, boxes, "E*max_boxes");
    check_extent(api, "half_extents", half_extents, boxes, "E*max_boxes");
    if (config_.max_boxes > 1) check_extent(api, "box_position", box_position, boxes, "E*max_boxes");
  }
  const auto superfluous = [&](bool given, const char* name, const char* why) {
    if (given) throw ConfigError(api + ": " + name + " was given, but " + why);
  };
  const char* no_boxes = "the Course has no collision backend or gate posts";
  superfluous(orientation.data() != nullptr && !checks_boxes(), "orientation", no_boxes);
  superfluous(half_extents.data() != nullptr && !checks_boxes(), "half_extents", no_boxes);
  superfluous(box_position.data() != nullptr && config_.max_boxes == 1, "box_position",
              "max_boxes = 1 (the agent position is the box position)");
  const bool changed = !bound_ || !same(position, position_) || !same(orientation, orientation_) ||
                       !same(half_extents, half_extents_) || !same(box_position, box_position_);
  if (!changed) return;
  if (step_recorded_) {
    logging::warn(api +
                  ": inputs rebound after a caller's capture recorded step(ctx); that graph keeps reading the "
                  "previous Views. Record it again.");
  }
  position_ = position;
  orientation_ = orientation;
  half_extents_ = half_extents;
  box_position_ = box_position;
  if (frames_) frames_->bind_inputs(position_);
  bound_ = true;
  step_recorded_ = false;
  step_runner_.reset_graphs();
  step_program_ = make_step_program();
}

template <class Space>
const typename Course<Space>::track_type& Course<Space>::generate() {
  return generate(ctx_);
}

template <class Space>
const typename Course<Space>::track_type& Course<Space>::generate(const LaunchContext<Space>& ctx) {
  enqueue_generate(ctx, IntView(), false);
  generation_runner_.run(refresh_program_, ctx, {policy_, std::nullopt, false});
  return track();
}

template <class Space>
const typename Course<Space>::track_type& Course<Space>::generate(std::int32_t k) {
  if (seeds().bound()) {
    throw ConfigError(course_api + "::generate(k): the Course reads a caller's seed View; write that View instead");
  }
  detail::expand_seeds(ctx_.space(), reseed_, k, config_.seed_expansion);
  seeds().set(ctx_, reseed_);
  return generate();
}

template <class Space>
const StepResult<Space>& Course<Space>::step() {
  return step(ctx_);
}

template <class Space>
const StepResult<Space>& Course<Space>::step(const LaunchContext<Space>& ctx) {
  if (!bound_) throw ConfigError(course_api + "::step: no agents bound; call bind(position, ...) first");
  step_runner_.run(step_program_, ctx, {policy_, std::nullopt, false});
  if (ctx.capturing()) step_recorded_ = true;
  return result_;
}

template <class Space>
void Course<Space>::reset(const IntView& mask) {
  reset(ctx_, mask);
}

template <class Space>
void Course<Space>::reset(const LaunchContext<Space>& ctx, const IntView& mask) {
  check_extent(course_api + "::reset", "mask", mask, static_cast<std::size_t>(num_envs()), "E");
  progress_->reset(ctx, mask);
  if (localizer_) localizer_->reset(ctx, mask);
}

template <class Space>
const typename Course<Space>::track_type& Course<Space>::regenerate(const IntView& mask, bool advance) {
  return regenerate(ctx_, mask, advance);
}

template <class Space>
const typename Course<Space>::track_type& Course<Space>::regenerate(const LaunchContext<Space>& ctx,
                                                                    const IntView& mask, bool advance) {
  check_extent(course_api + "::regenerate", "mask", mask, static_cast<std::size_t>(num_envs()), "E");
  const GraphKey key{reinterpret_cast<std::uintptr_t>(mask.data()), advance ? 1u : 0u};
  // The program of a key is built once (the runner's graph of that key reads
  // the same mask View); past max_keyed_graphs keys a call builds its own.
  auto it = regenerate_programs_.find(key);
  if (it == regenerate_programs_.end() && regenerate_programs_.size() < GraphRunner<Space>::max_keyed_graphs) {
    it = regenerate_programs_.emplace(key, make_regenerate_program(mask, advance)).first;
  }
  if (it != regenerate_programs_.end()) {
    generation_runner_.run(it->second, ctx, {policy_, key, false});
  } else {
    generation_runner_.run(make_regenerate_program(mask, advance), ctx, {policy_, key, false});
  }
  return track();
}

template <class Space>
const typename Course<Space>::track_type& Course<Space>::track() const {
  return gates_mode() ? course_line_->line() : generator_->track();
}

template <class Space>
TrackGenerator<Space>& Course<Space>::generator() {
  if (!generator_) throw ConfigError(course_api + "::generator: a gates-mode Course has a gate_generator()");
  return *generator_;
}

template <class Space>
GateGenerator<Space>& Course<Space>::gate_generator() {
  if (!gate_generator_) throw ConfigError(course_api + "::gate_generator: a track-mode Course has a generator()");
  return *gate_generator_;
}

template <class Space>
const typename Course<Space>::sequence_type& Course<Space>::gates() const {
  if (!gate_generator_) throw ConfigError(course_api + "::gates: a track-mode Course has no gates");
  return gate_generator_->gates();
}

template <class Space>
const SeedState<Space>& Course<Space>::seeds() {
  if (generator_) return generator_->seeds();
  return gate_generator_->seeds();
}

template <class Space>
const CheckpointSampler<Space>& Course<Space>::checkpoint_sampler() const {
  if (!checkpoints_) {
    throw ConfigError(course_api +
                      "::checkpoint_sampler: a gates-mode Course has none (the gates are the checkpoints)");
  }
  return *checkpoints_;
}

template <class Space>
std::size_t estimate_course_memory(const CourseConfig& config) {
  using Progress = ProgressTracker<Space>;
  const bool gates = config.mode == CourseMode::gates;
  const std::size_t E = static_cast<std::size_t>(config.num_envs()), i32 = sizeof(std::int32_t), f32 = sizeof(float);
  const std::size_t v2 = sizeof(Vec2f), v3 = sizeof(Vec3f), boxes = E * static_cast<std::size_t>(config.max_boxes);
  // The generator, the Course's seeds (seeds and epochs), mask_any, reseed;
  // the ProgressTracker (its [E] state and events, the near index).
  std::size_t b = gates ? estimate_gate_memory<Space>(config.gate_gen) : estimate_memory<Space>(config.gen);
  b += 2 * E * i32 + i32 + E * i32;
  b += E * (v3 + 10 * i32 + f32) + E * Progress::near_slots * (i32 + f32 + sizeof(typename Progress::NearPlane)) +
       E * (v3 + f32 + i32);
  const std::size_t localizer = E * (i32 + 3 * f32 + i32);  // last segment, s, n, n_up, segment
  if (gates) {
    const std::size_t G = static_cast<std::size_t>(config.gate_gen.max_gates);
    b += Track<typename Space::memory_space>::bytes_for(config.gate_gen.num_envs,
                                                        config.gate_gen.max_gates * config.samples_per_gate);
    b += localizer;
    if (config.post_radius > 0.0f) b += 2 * E * G * v3 + boxes * (3 * i32 + v2);  // posts, DiscContact
    if (config.frame_collision) b += E * (i32 + f32);                             // FrameContact
    return b;
  }
  const std::size_t cap = static_cast<std::size_t>(checkpoint_capacity(config)), n_max = config.gen.N_max;
  b += E * cap * (4 * v3 + f32) + E * i32 + 2 * E * i32;  // CheckpointSet, the sampler's truncated and step
  const std::size_t chunks = static_cast<std::size_t>(detail::chunk_boxes(config.gen.N_max));
  if (config.collision) {  // contacts, border grids, sdf field: the checker's own count
    b += CollisionChecker<Space>::estimate_bytes(config.gen.num_envs, config.gen.N_max, config.max_boxes,
                                                 *config.collision,
                                                 GridOptions{config.sdf_resolution.value_or(128), config.sdf_padding});
  }
  if (config.localize) b += localizer;
  if (config.heightfield_resolution) {
    const std::size_t R = static_cast<std::size_t>(*config.heightfield_resolution);
    b += E * R * R * f32 + 2 * E * v2 + E * 2 * chunks * v2;
  }
  if (config.speed_limits) b += 2 * E * n_max * f32;  // curvature and speed
  return b;
}

template <class Space>
int max_course_envs_within(const CourseConfig& config, std::size_t limit) {
  auto with_envs = [&](int e) {
    CourseConfig c = config;
    (c.mode == CourseMode::gates ? c.gate_gen.num_envs : c.gen.num_envs) = e;
    return estimate_course_memory<Space>(c);
  };
  if (with_envs(1) > limit) return 0;
  int lo = 1, hi = 1 << 20;  // with_envs(lo) fits
  if (with_envs(hi) <= limit) return hi;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (with_envs(mid) <= limit ? lo : hi) = mid;
  }
  return lo;
}

template <class Space>
void check_course_memory(const CourseConfig& config, std::size_t limit, const std::string& api) {
  if (limit == 0) return;
  const std::size_t need = estimate_course_memory<Space>(config);
  if (need <= limit) return;
  auto mib = [](std::size_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return std::string(buf);
  };
  throw ConfigError(api + ": the Course needs an estimated " + mib(need) + " (" + std::to_string(config.num_envs()) +
                    " envs, their generator and helpers), above the memory limit of " + mib(limit) +
                    " (TRACKGEN_MEMORY_LIMIT_MB, or 3/4 of the physical memory); at most " +
                    std::to_string(max_course_envs_within<Space>(config, limit)) + " envs of this config fit");
}

#define TRACKGEN_INSTANTIATE_COURSE(S)                                      \
  template struct StepResult<S>;                                            \
  template class Course<S>;                                                 \
  template std::size_t estimate_course_memory<S>(const CourseConfig&);      \
  template int max_course_envs_within<S>(const CourseConfig&, std::size_t); \
  template void check_course_memory<S>(const CourseConfig&, std::size_t, const std::string&);
TRACKGEN_FOR_EACH_SPACE(TRACKGEN_INSTANTIATE_COURSE)

}  // namespace trackgen
