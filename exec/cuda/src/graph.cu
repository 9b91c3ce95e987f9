// The CUDA graph executor (see graph.hpp). Written against the CUDA 13 runtime
// signatures: cudaStreamGetCaptureInfo, cudaStreamUpdateCaptureDependencies and
// cudaGraphAddNode take edge data; the _v2/_v3 names of CUDA 12 are gone. The CUDA
// 12.4 - 12.9 spellings of the same calls sit in the compatibility wrappers below
// (the only CUDA this project is compiled with here is 13.0).
//
// Long file (about 550 lines), kept whole on purpose: the capture bookkeeping
// (which thread captures which stream), the conditional-node support probe and
// the user-object registry are internal to this one translation unit, and every
// public entry point below uses them.
#include <trackgen/exec/cuda/graph.hpp>

#include <cuda_runtime.h>

#include <atomic>
#include <iterator>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if !defined(CUDART_VERSION) || CUDART_VERSION < 12000
#error "TrackGen's CUDA executor requires the CUDA runtime >= 12.0"
#endif

#if CUDART_VERSION >= 12040
#define TRACKGEN_CUDA_CONDITIONAL_NODES 1
#else
#define TRACKGEN_CUDA_CONDITIONAL_NODES 0
#endif

namespace trackgen::cuda_exec {

namespace {

/// Clears the runtime's non-sticky last error after a probe that may fail.
void clear_last_error() noexcept { (void)cudaGetLastError(); }

/// Puts this thread in the relaxed capture-interaction mode for a scope, so that a
/// query which CUDA might classify as potentially unsafe (a pointer-attribute query,
/// loading the flag kernel's module) can never invalidate a capture that is open in
/// Global or ThreadLocal mode (cudaThreadExchangeStreamCaptureMode).
class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode() noexcept : active_(cudaThreadExchangeStreamCaptureMode(&mode_) == cudaSuccess) {
    if (!active_) clear_last_error();
  }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;
  ~RelaxedCaptureMode() {
    if (active_) (void)cudaThreadExchangeStreamCaptureMode(&mode_);
  }

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
  bool active_;
};

// ---------------------------------------------------------------------------
// CUDA 13 / CUDA 12 spellings of the capture calls that carry edge data.

/// Capture status and graph of `stream` (no dependencies requested).
cudaError_t query_capture(cudaStream_t stream, cudaStreamCaptureStatus* status, cudaGraph_t* graph) {
#if CUDART_VERSION >= 13000
  return cudaStreamGetCaptureInfo(stream, status, nullptr, graph, nullptr, nullptr, nullptr);
#elif CUDART_VERSION >= 12030
  return cudaStreamGetCaptureInfo_v3(stream, status, nullptr, graph, nullptr, nullptr, nullptr);
#else
  return cudaStreamGetCaptureInfo(stream, status, nullptr, graph, nullptr, nullptr);
#endif
}

#if TRACKGEN_CUDA_CONDITIONAL_NODES
/// Capture status, graph and current dependencies (with their edge data).
cudaError_t query_capture_dependencies(cudaStream_t stream, cudaStreamCaptureStatus* status, cudaGraph_t* graph,
                                       const cudaGraphNode_t** deps, const cudaGraphEdgeData** edges,
                                       std::size_t* count) {
#if CUDART_VERSION >= 13000
  return cudaStreamGetCaptureInfo(stream, status, nullptr, graph, deps, edges, count);
#else
  return cudaStreamGetCaptureInfo_v3(stream, status, nullptr, graph, deps, edges, count);
#endif
}

/// Adds a node with parameters `params` after `deps`/`edges` in `graph`.
cudaError_t add_node(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                     const cudaGraphEdgeData* edges, std::size_t count, cudaGraphNodeParams* params) {
#if CUDART_VERSION >= 13000
  return cudaGraphAddNode(node, graph, deps, edges, count, params);
#else
  return cudaGraphAddNode_v2(node, graph, deps, edges, count, params);
#endif
}

/// Replaces the dependency set of the capturing `stream` by `node`.
cudaError_t set_capture_dependency(cudaStream_t stream, cudaGraphNode_t node) {
#if CUDART_VERSION >= 13000
  return cudaStreamUpdateCaptureDependencies(stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies);
#else
  return cudaStreamUpdateCaptureDependencies_v2(stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies);
#endif
}

/// One thread sets the conditional value of `handle` from the device flag. Runs
/// at replay time, ordered after the work that computes the flag.
__global__ void set_conditional_kernel(cudaGraphConditionalHandle handle, const int* flag) {
  cudaGraphSetConditional(handle, *flag != 0 ? 1u : 0u);
}
#endif  // TRACKGEN_CUDA_CONDITIONAL_NODES

// ---------------------------------------------------------------------------
// The capture modes of the captures this thread began through this library
// (StreamCapture and capture_if's body captures), innermost last, so that
// capture_if resumes an interrupted capture in the mode it was begun with.

struct CaptureEntry {
  cudaStream_t stream;
  cudaStreamCaptureMode mode;
};

std::vector<CaptureEntry>& thread_captures() {
  thread_local std::vector<CaptureEntry> entries;
  return entries;
}

void push_capture(cudaStream_t stream, cudaStreamCaptureMode mode) { thread_captures().push_back({stream, mode}); }

void pop_capture(cudaStream_t stream) noexcept {
  auto& entries = thread_captures();
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    if (it->stream == stream) {
      entries.erase(std::next(it).base());
      return;
    }
  }
}

[[maybe_unused]] std::optional<cudaStreamCaptureMode> registered_mode(cudaStream_t stream) {
  const auto& entries = thread_captures();
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    if (it->stream == stream) return it->mode;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Conditional-node support, probed once per device.

#if TRACKGEN_CUDA_CONDITIONAL_NODES
bool probe_conditional_support(int device) noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count) return false;
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver < 12040) return false;
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) return false;
  if (current != device && cudaSetDevice(device) != cudaSuccess) return false;
  // The device-side requirement: our flag kernel (cudaGraphSetConditional) has an
  // image for this device. Querying its attributes also loads it, so no module
  // load happens later inside a capture.
  cudaFuncAttributes attributes{};
  const bool loadable = cudaFuncGetAttributes(&attributes, set_conditional_kernel) == cudaSuccess;
  if (current != device) (void)cudaSetDevice(current);
  return loadable;
}
#endif

/// The device `stream` belongs to (the current device before CUDA 12.8).
int stream_device(cudaStream_t stream) {
  int device = -1;
#if CUDART_VERSION >= 12080
  check(cudaStreamGetDevice(stream, &device), "cudaStreamGetDevice");
#else
  (void)stream;
  check(cudaGetDevice(&device), "cudaGetDevice");
#endif
  return device;
}

/// Throws std::invalid_argument unless `flag` is device or managed memory that
/// kernels on `device` read directly.
void validate_flag(const int* flag, int device) {
  cudaPointerAttributes attributes{};
  cudaError_t err = cudaSuccess;
  {
    RelaxedCaptureMode relaxed;
    err = cudaPointerGetAttributes(&attributes, flag);
  }
  if (err != cudaSuccess) {
    clear_last_error();
    throw std::invalid_argument(std::string("trackgen::cuda_exec::capture_if: flag_device is not a CUDA pointer (") +
                                cudaGetErrorName(err) + ")");
  }
  const bool device_memory = attributes.type == cudaMemoryTypeDevice && attributes.device == device;
  if (!device_memory && attributes.type != cudaMemoryTypeManaged) {
    throw std::invalid_argument(
        "trackgen::cuda_exec::capture_if: flag_device must be device memory of the stream's device " +
        std::to_string(device) + " (memory type " + std::to_string(static_cast<int>(attributes.type)) + ", device " +
        std::to_string(attributes.device) + ")");
  }
}

// ---------------------------------------------------------------------------
// Owners retained by graphs. CUDA calls the user-object destructor on an internal
// thread that must not call CUDA, so the callback only pushes the owner onto a
// lock-free list; release_retained_owners() destroys them on a user thread.

struct RetainedOwner {
  std::shared_ptr<void> owner;
  RetainedOwner* next = nullptr;
};

/// Trivially destructible on purpose: owners still queued at exit are leaked, not
/// destroyed after the CUDA runtime (or Kokkos) has shut down.
std::atomic<RetainedOwner*> released_owners{nullptr};

void CUDART_CB on_user_object_destroyed(void* data) {
  auto* node = static_cast<RetainedOwner*>(data);
  node->next = released_owners.load(std::memory_order_relaxed);
  while (
      !released_owners.compare_exchange_weak(node->next, node, std::memory_order_release, std::memory_order_relaxed)) {
  }
}

}  // namespace

// ---------------------------------------------------------------------------

void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  clear_last_error();
  throw std::runtime_error(std::string("trackgen::cuda_exec: ") + (what != nullptr ? what : "CUDA call") +
                           " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

// Graph -----------------------------------------------------------------------

Graph Graph::create() {
  cudaGraph_t graph = nullptr;
  check(cudaGraphCreate(&graph, 0), "cudaGraphCreate");
  return Graph(graph);
}

Graph::Graph(Graph&& other) noexcept : graph_(std::exchange(other.graph_, nullptr)) {}

Graph& Graph::operator=(Graph&& other) noexcept {
  if (this != &other) {
    reset();
    graph_ = std::exchange(other.graph_, nullptr);
  }
  return *this;
}

Graph::~Graph() { reset(); }

cudaGraph_t Graph::release() noexcept { return std::exchange(graph_, nullptr); }

void Graph::reset() noexcept {
  if (graph_ != nullptr) {
    if (cudaGraphDestroy(graph_) != cudaSuccess) clear_last_error();
    graph_ = nullptr;
  }
}

std::size_t Graph::node_count() const {
  if (graph_ == nullptr) throw std::invalid_argument("trackgen::cuda_exec::Graph::node_count: empty graph");
  std::size_t count = 0;
  check(cudaGraphGetNodes(graph_, nullptr, &count), "cudaGraphGetNodes");
  return count;
}

std::size_t Graph::node_count(cudaGraphNodeType type) const {
  std::size_t count = node_count();
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) check(cudaGraphGetNodes(graph_, nodes.data(), &count), "cudaGraphGetNodes");
  std::size_t matching = 0;
  for (std::size_t i = 0; i < count; ++i) {
    cudaGraphNodeType node_type{};
    check(cudaGraphNodeGetType(nodes[i], &node_type), "cudaGraphNodeGetType");
    if (node_type == type) ++matching;
  }
  return matching;
}

// GraphExec -------------------------------------------------------------------

GraphExec::GraphExec(GraphExec&& other) noexcept : exec_(std::exchange(other.exec_, nullptr)) {}

GraphExec& GraphExec::operator=(GraphExec&& other) noexcept {
  if (this != &other) {
    reset();
    exec_ = std::exchange(other.exec_, nullptr);
  }
  return *this;
}

GraphExec::~GraphExec() { reset(); }

cudaGraphExec_t GraphExec::release() noexcept { return std::exchange(exec_, nullptr); }

void GraphExec::reset() noexcept {
  if (exec_ != nullptr) {
    if (cudaGraphExecDestroy(exec_) != cudaSuccess) clear_last_error();
    exec_ = nullptr;
  }
}

void GraphExec::launch(cudaStream_t stream) const {
  if (exec_ == nullptr) throw std::invalid_argument("trackgen::cuda_exec::GraphExec::launch: empty executable graph");
  check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch");
}

// Stream ----------------------------------------------------------------------

Stream::Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }

Stream::Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (stream_ != nullptr && cudaStreamDestroy(stream_) != cudaSuccess) clear_last_error();
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

Stream::~Stream() {
  if (stream_ != nullptr && cudaStreamDestroy(stream_) != cudaSuccess) clear_last_error();
}

void Stream::synchronize() const {
  if (is_capturing(stream_)) {
    throw std::logic_error(
        "trackgen::cuda_exec::Stream::synchronize: the stream is capturing (no host sync in a capture)");
  }
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

// Capture ---------------------------------------------------------------------

bool is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(stream, &status), "cudaStreamIsCapturing");
  return status == cudaStreamCaptureStatusActive;
}

cudaGraph_t capture_graph(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaGraph_t graph = nullptr;
  check(query_capture(stream, &status, &graph), "cudaStreamGetCaptureInfo");
  return status == cudaStreamCaptureStatusActive ? graph : nullptr;
}

StreamCapture::StreamCapture(cudaStream_t stream, cudaStreamCaptureMode mode) : stream_(stream), mode_(mode) {
  if (is_capturing(stream)) {
    throw std::logic_error("trackgen::cuda_exec::StreamCapture: the stream is already capturing");
  }
  (void)conditional_nodes_supported(stream_device(stream));  // warm the probe outside the capture
  push_capture(stream, mode);
  const cudaError_t err = cudaStreamBeginCapture(stream, mode);
  if (err != cudaSuccess) {
    pop_capture(stream);
    check(err, "cudaStreamBeginCapture");
  }
  active_ = true;
}

StreamCapture::~StreamCapture() {
  if (!active_) return;
  pop_capture(stream_);
  cudaGraph_t partial = nullptr;
  if (cudaStreamEndCapture(stream_, &partial) != cudaSuccess) clear_last_error();
  if (partial != nullptr && cudaGraphDestroy(partial) != cudaSuccess) clear_last_error();
}

Graph StreamCapture::end() {
  if (!active_) throw std::logic_error("trackgen::cuda_exec::StreamCapture::end: the capture was already ended");
  active_ = false;
  pop_capture(stream_);
  cudaGraph_t graph = nullptr;
  const cudaError_t err = cudaStreamEndCapture(stream_, &graph);
  Graph owned(graph);  // owns whatever CUDA returned, even on error
  check(err, "cudaStreamEndCapture");
  return owned;
}

Graph capture(cudaStream_t stream, const std::function<void()>& body, cudaStreamCaptureMode mode) {
  StreamCapture capture(stream, mode);
  body();
  return capture.end();
}

GraphExec instantiate(const Graph& graph) {
  if (!graph) throw std::invalid_argument("trackgen::cuda_exec::instantiate: empty graph");
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, graph.get(), 0), "cudaGraphInstantiate");
  return GraphExec(exec);
}

// Conditional nodes -------------------------------------------------------------

bool conditional_nodes_supported(int device) {
#if TRACKGEN_CUDA_CONDITIONAL_NODES
  static std::mutex mutex;
  static std::vector<signed char> cache;  // per device: -1 unknown, 0 no, 1 yes
  int count = 0;
  if (device < 0 || cudaGetDeviceCount(&count) != cudaSuccess || device >= count) {
    clear_last_error();
    return false;
  }
  try {
    std::lock_guard<std::mutex> lock(mutex);
    if (static_cast<std::size_t>(device) < cache.size() && cache[device] >= 0) return cache[device] == 1;
    RelaxedCaptureMode relaxed;  // the probe may run while a capture is open
    const bool supported = probe_conditional_support(device);
    clear_last_error();
    if (static_cast<std::size_t>(device) >= cache.size()) cache.resize(device + 1, -1);
    cache[device] = supported ? 1 : 0;
    return supported;
  } catch (...) {  // allocation failure: report "unsupported", never throw
    return false;
  }
#else
  (void)device;
  return false;
#endif
}

bool conditional_nodes_supported() {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    clear_last_error();
    return false;
  }
  return conditional_nodes_supported(device);
}

bool capture_if(cudaStream_t stream, const int* flag_device, const std::function<void()>& body,
                cudaStreamCaptureMode foreign_mode) {
  if (flag_device == nullptr) throw std::invalid_argument("trackgen::cuda_exec::capture_if: flag_device is null");
  if (!body) throw std::invalid_argument("trackgen::cuda_exec::capture_if: empty body");

  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaGraph_t graph = nullptr;
  check(query_capture(stream, &status, &graph), "cudaStreamGetCaptureInfo");
  const int device = stream_device(stream);
  validate_flag(flag_device, device);  // the same errors whatever the capture state

  if (status != cudaStreamCaptureStatusActive || !conditional_nodes_supported(device)) {
    body();
    return false;
  }

#if TRACKGEN_CUDA_CONDITIONAL_NODES
  const cudaStreamCaptureMode mode = registered_mode(stream).value_or(foreign_mode);

  // 1. The handle lives in the graph that will contain the node (the capture
  //    graph, or the body graph of an enclosing capture_if). With
  //    cudaGraphCondAssignDefault it is reset to 0 at every launch; the flag
  //    kernel sets it right before the node anyway.
  cudaGraphConditionalHandle handle{};
  check(cudaGraphConditionalHandleCreate(&handle, graph, 0u, cudaGraphCondAssignDefault),
        "cudaGraphConditionalHandleCreate");
  set_conditional_kernel<<<1, 1, 0, stream>>>(handle, flag_device);
  check(cudaGetLastError(), "launch of the conditional flag kernel");

  // 2. The IF node after the current capture dependencies (now: the flag kernel).
  const cudaGraphNode_t* deps = nullptr;
  const cudaGraphEdgeData* edges = nullptr;
  std::size_t num_deps = 0;
  check(query_capture_dependencies(stream, &status, &graph, &deps, &edges, &num_deps), "cudaStreamGetCaptureInfo");
  if (status != cudaStreamCaptureStatusActive) {
    throw std::runtime_error("trackgen::cuda_exec::capture_if: the capture was invalidated");
  }
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = cudaGraphCondTypeIf;
  params.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
  check(add_node(&node, graph, deps, edges, num_deps, &params), "cudaGraphAddNode (conditional IF node)");
  cudaGraph_t body_graph = params.conditional.phGraph_out[0];  // owned by the node
  check(set_capture_dependency(stream, node), "cudaStreamUpdateCaptureDependencies");

  // 3. Pause the stream's capture: a stream captures into one graph at a time, and
  //    `body` enqueues on this very stream.
  cudaGraph_t paused = nullptr;
  check(cudaStreamEndCapture(stream, &paused),
        "cudaStreamEndCapture (pausing the capture around a conditional node; a side stream that joined the "
        "capture must be joined back first)");
  // From here on the enclosing capture must be resumed on every path. (If resuming
  // failed, `paused` would leak: we cannot tell whether we or the capturer own it.)
  auto resume = [&]() noexcept { return cudaStreamBeginCaptureToGraph(stream, paused, &node, nullptr, 1, mode); };

  // 4. Capture `body` into the node's body graph.
  cudaError_t err = cudaStreamBeginCaptureToGraph(stream, body_graph, nullptr, nullptr, 0, mode);
  if (err != cudaSuccess) {
    (void)resume();
    check(err, "cudaStreamBeginCaptureToGraph (conditional body)");
  }
  push_capture(stream, mode);
  try {
    body();
  } catch (...) {
    pop_capture(stream);
    cudaGraph_t discarded = nullptr;
    (void)cudaStreamEndCapture(stream, &discarded);  // owned by the node: not destroyed
    (void)resume();
    clear_last_error();
    throw;
  }
  pop_capture(stream);
  cudaGraph_t ended = nullptr;
  err = cudaStreamEndCapture(stream, &ended);

  // 5. Resume the enclosing capture after the conditional node.
  const cudaError_t resumed = resume();
  check(err, "cudaStreamEndCapture (conditional body: only kernels, memsets and device copies on this stream)");
  check(resumed, "cudaStreamBeginCaptureToGraph (resuming the capture after a conditional node)");
  return true;
#else
  (void)foreign_mode;
  body();
  return false;
#endif
}

// Lifetime ----------------------------------------------------------------------

void retain(cudaGraph_t graph, std::shared_ptr<void> owner) {
  if (graph == nullptr) throw std::invalid_argument("trackgen::cuda_exec::retain: null graph");
  if (!owner) throw std::invalid_argument("trackgen::cuda_exec::retain: null owner");
  auto* node = new RetainedOwner{std::move(owner), nullptr};
  cudaUserObject_t object = nullptr;
  cudaError_t err = cudaUserObjectCreate(&object, node, on_user_object_destroyed, 1, cudaUserObjectNoDestructorSync);
  if (err != cudaSuccess) {
    delete node;
    check(err, "cudaUserObjectCreate");
  }
  // Moves our one reference into the graph: from now on CUDA owns `node`.
  err = cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove);
  if (err != cudaSuccess) {
    (void)cudaUserObjectRelease(object, 1);  // queues `node` through the callback
    check(err, "cudaGraphRetainUserObject");
  }
}

std::size_t release_retained_owners() {
  RetainedOwner* list = released_owners.exchange(nullptr, std::memory_order_acquire);
  std::size_t released = 0;
  while (list != nullptr) {
    RetainedOwner* next = list->next;
    delete list;
    list = next;
    ++released;
  }
  return released;
}

}  // namespace trackgen::cuda_exec
