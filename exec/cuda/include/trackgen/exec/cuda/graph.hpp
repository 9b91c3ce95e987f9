// The CUDA graph executor: stream capture, replay, conditional nodes and graph
// lifetime, in plain CUDA runtime code (no Kokkos). The execution layer calls it
// with the stream of a Kokkos::Cuda instance (`space.cuda_stream()`):
//
//   StreamCapture cap(stream);        // cudaStreamBeginCapture (thread-local mode)
//   run_program(stream);              // every launch goes to `stream`
//   GraphExec exec = instantiate(cap.end());
//   exec.launch(stream);              // replay, as often as needed
//
// Inside a capture, capture_if() records a body under a CUDA IF conditional node
// that reads a device flag at replay time (CUDA >= 12.4; unconditional elsewhere),
// which is how skip_unless() and every bounded_loop() window are lowered on CUDA.
// retain() ties an owner's lifetime to a graph through a CUDA user object, so a
// producer recorded into a user's graph outlives the user's handle to it.
//
// This header is host-only C++ (no device code): it can be included from any
// translation unit that sees the CUDA runtime headers.
//
// Rules kept everywhere in this layer: no frees, host synchronizations or event
// timing while a stream is capturing; native handles are owned by RAII types with
// noexcept destructors; CUDA errors throw std::runtime_error naming the API call;
// device code never throws.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>

namespace trackgen::cuda_exec {

/// Throws std::runtime_error when `err` is not cudaSuccess. The message names the
/// API (`what`, e.g. "cudaGraphInstantiate") and the CUDA error name and string:
/// "trackgen::cuda_exec: cudaGraphInstantiate failed: cudaErrorInvalidValue (invalid
/// argument)". The runtime's non-sticky last error is cleared before throwing.
void check(cudaError_t err, const char* what);

/// Owning handle of a `cudaGraph_t`: move-only, destroys the graph in its noexcept
/// destructor. An empty handle (default-constructed or moved-from) owns nothing.
class Graph {
 public:
  /// An empty handle.
  Graph() noexcept = default;
  /// Takes ownership of `owned` (may be null).
  explicit Graph(cudaGraph_t owned) noexcept : graph_(owned) {}
  /// A new, empty CUDA graph (cudaGraphCreate).
  static Graph create();

  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  /// Transfers ownership; `other` becomes empty.
  Graph(Graph&& other) noexcept;
  /// Destroys the owned graph, then takes ownership from `other`.
  Graph& operator=(Graph&& other) noexcept;
  /// Destroys the owned graph (errors are ignored). Executable graphs instantiated
  /// from it stay valid; user objects it retains lose its references.
  ~Graph();

  /// The native handle (still owned by this object); null when empty.
  cudaGraph_t get() const noexcept { return graph_; }
  /// Whether a graph is owned.
  explicit operator bool() const noexcept { return graph_ != nullptr; }
  /// Gives up ownership and returns the native handle; this becomes empty.
  cudaGraph_t release() noexcept;
  /// Destroys the owned graph now (no-op when empty).
  void reset() noexcept;

  /// The number of top-level nodes (bodies of conditional nodes and child graphs
  /// are not counted). Throws std::invalid_argument when empty.
  std::size_t node_count() const;
  /// The number of top-level nodes of `type` (e.g. cudaGraphNodeTypeConditional).
  /// Throws std::invalid_argument when empty.
  std::size_t node_count(cudaGraphNodeType type) const;

 private:
  cudaGraph_t graph_ = nullptr;
};

/// Owning handle of a `cudaGraphExec_t` (an instantiated graph): move-only, destroys
/// it in its noexcept destructor (launches still in flight complete first, as CUDA
/// defers the release).
class GraphExec {
 public:
  /// An empty handle.
  GraphExec() noexcept = default;
  /// Takes ownership of `owned` (may be null).
  explicit GraphExec(cudaGraphExec_t owned) noexcept : exec_(owned) {}

  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  /// Transfers ownership; `other` becomes empty.
  GraphExec(GraphExec&& other) noexcept;
  /// Destroys the owned executable graph, then takes ownership from `other`.
  GraphExec& operator=(GraphExec&& other) noexcept;
  /// Destroys the owned executable graph (errors are ignored).
  ~GraphExec();

  /// The native handle (still owned by this object); null when empty.
  cudaGraphExec_t get() const noexcept { return exec_; }
  /// Whether an executable graph is owned.
  explicit operator bool() const noexcept { return exec_ != nullptr; }
  /// Gives up ownership and returns the native handle; this becomes empty.
  cudaGraphExec_t release() noexcept;
  /// Destroys the owned executable graph now (no-op when empty).
  void reset() noexcept;

  /// Enqueues one replay on `stream` (cudaGraphLaunch); asynchronous, no host
  /// synchronization. Launching into a capturing stream records the graph as a child
  /// graph, which CUDA refuses for a graph that holds conditional nodes. Throws
  /// std::invalid_argument when empty, std::runtime_error on a CUDA error.
  void launch(cudaStream_t stream) const;

 private:
  cudaGraphExec_t exec_ = nullptr;
};

/// Owning handle of a CUDA stream created with cudaStreamNonBlocking (so the legacy
/// default stream never serializes it and it can be captured). Move-only.
class Stream {
 public:
  /// Creates a new non-blocking stream on the current device.
  Stream();
  /// Takes ownership of `owned` (may be null).
  explicit Stream(cudaStream_t owned) noexcept : stream_(owned) {}

  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  /// Transfers ownership; `other` becomes empty.
  Stream(Stream&& other) noexcept;
  /// Destroys the owned stream, then takes ownership from `other`.
  Stream& operator=(Stream&& other) noexcept;
  /// Destroys the owned stream (errors are ignored; pending work still completes).
  ~Stream();

  /// The native handle (still owned by this object).
  cudaStream_t get() const noexcept { return stream_; }
  /// Blocks the host until the work queued on the stream finished. Never while the
  /// stream is capturing (throws std::logic_error then, before any CUDA call that
  /// would invalidate the capture).
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

/// Whether `stream` is capturing into a graph (cudaStreamIsCapturing reports an
/// active capture: its own, or one it joined through an event wait). Throws
/// std::runtime_error on a CUDA error, e.g. for the legacy default stream while a
/// blocking stream of the device captures.
bool is_capturing(cudaStream_t stream);

/// The graph that `stream` is capturing into (not owned: the capture's owner gets
/// it at cudaStreamEndCapture), or null when `stream` is not actively capturing.
/// Nodes may be added to it and user objects retained (see retain()) while the
/// capture is open. Throws std::runtime_error on a CUDA error.
cudaGraph_t capture_graph(cudaStream_t stream);

/// RAII stream capture: the constructor begins a capture on `stream`, end() ends it
/// and returns the graph; destroying a StreamCapture that was not ended (for
/// example while an exception unwinds) aborts the capture: it ends it and destroys
/// the partial graph, leaving the stream usable.
///
/// Mode: cudaStreamCaptureModeThreadLocal by default. It makes potentially unsafe
/// calls (cudaMalloc, cudaFree, synchronizing copies, device-wide syncs) from THIS
/// thread fail while the capture is open, which catches a stage that would break
/// replay, without interfering with other threads: two producers can capture on
/// two threads at once (Global would make each thread's unsafe calls invalidate
/// the other's capture). Relaxed is available for code that must make such calls
/// lazily during capture (e.g. a first-use allocation); prefer a warm-up pass.
///
/// Not copyable or movable: with the Global and ThreadLocal modes the capture must
/// be ended by the thread that began it. The stream must not be capturing already.
class StreamCapture {
 public:
  /// Begins capturing `stream` (cudaStreamBeginCapture). Throws std::logic_error
  /// when `stream` is already capturing (without touching that capture), and
  /// std::runtime_error on a CUDA error. Also warms the conditional-node support
  /// probe for the stream's device, so that capture_if() loads no module while
  /// capturing.
  explicit StreamCapture(cudaStream_t stream, cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal);
  StreamCapture(const StreamCapture&) = delete;
  StreamCapture& operator=(const StreamCapture&) = delete;
  /// Aborts the capture if end() was not called (noexcept; errors are ignored).
  ~StreamCapture();

  /// Ends the capture (cudaStreamEndCapture) and returns the captured graph.
  /// Throws std::logic_error when already ended, std::runtime_error when CUDA
  /// reports an error (e.g. the capture was invalidated by an illegal call, or a
  /// side stream that joined it was not joined back).
  Graph end();

  /// Whether the capture is still open (end() not yet called).
  bool active() const noexcept { return active_; }
  /// The captured stream.
  cudaStream_t stream() const noexcept { return stream_; }
  /// The capture mode the stream was begun with.
  cudaStreamCaptureMode mode() const noexcept { return mode_; }

 private:
  cudaStream_t stream_;
  cudaStreamCaptureMode mode_;
  bool active_ = false;
};

/// Captures everything `body` enqueues on `stream` into a new graph (a StreamCapture
/// around `body`). If `body` throws, the capture is aborted and the exception
/// propagates.
Graph capture(cudaStream_t stream, const std::function<void()>& body,
              cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal);

/// Instantiates `graph` into an executable graph (cudaGraphInstantiate, no flags).
/// The graph itself stays owned by the caller and may be destroyed afterwards.
/// Throws std::invalid_argument for an empty graph, std::runtime_error on a CUDA
/// error.
GraphExec instantiate(const Graph& graph);

/// Whether CUDA conditional nodes can be recorded on the current device: built
/// against CUDA >= 12.4, a driver >= 12.4, a device present, and the library's
/// flag-reading kernel loadable on it (a kernel image or PTX for its architecture).
/// False without a device or driver. Never throws; cached per device after the
/// first query, which also loads the kernel (so call it once before capturing).
bool conditional_nodes_supported();

/// Same as conditional_nodes_supported() for device ordinal `device`.
bool conditional_nodes_supported(int device);

/// Records `body` under a CUDA IF conditional node that runs it at replay time only
/// when `*flag_device != 0`, when `stream` is actively capturing and conditional
/// nodes are supported; returns true then. Otherwise (not capturing, capture
/// invalidated, no support) runs `body` unconditionally (eagerly, or recorded
/// unconditionally into the capture) and returns false.
///
/// `body` must enqueue its work on `stream` only, and may enqueue only kernel
/// launches, memsets and device-to-device copies (what a conditional body graph
/// admits); nested capture_if() calls are allowed. Contract of the callers
/// (skip_unless, bounded_loop): `body` is an exact no-op when the flag is 0, so
/// both lowerings give bitwise identical results.
///
/// `flag_device` must point to device (or managed) memory of the stream's device;
/// it is read by a kernel at replay time, after the work enqueued before this call
/// (e.g. a kernel that computes it earlier in the same capture).
///
/// How it records: it creates a conditional handle on the capture graph, launches a
/// one-thread kernel that calls cudaGraphSetConditional(handle, *flag != 0), adds
/// the IF node after the stream's current capture dependencies and makes it the
/// only dependency, then PAUSES the stream's capture (cudaStreamEndCapture), captures
/// `body` into the node's body graph (cudaStreamBeginCaptureToGraph on the same
/// stream) and resumes the capture into the original graph after the node. Hence:
///  - `stream` must be the stream the capture was begun on (not a stream that only
///    joined it), every side stream that joined the capture must have been joined
///    back (CUDA refuses to end a capture with an unjoined fork, which invalidates
///    it), and the call must come from the thread that began the capture (Global
///    and ThreadLocal modes);
///  - the capture id changes (a capturer that tracks its capture by id loses it),
///    while the graph handle stays the same;
///  - the graph can no longer be used as a child graph.
/// The capture resumes in the mode of the enclosing StreamCapture of this thread,
/// or `foreign_mode` when the capture was begun elsewhere (pass the mode it was
/// begun with; CUDA cannot report it).
///
/// If `body` throws, the body capture is ended, the enclosing capture is resumed
/// (so its owner can still end or abort it) and the exception propagates. Throws
/// std::invalid_argument for a null flag, a flag that is not device memory of the
/// stream's device, or an empty body; std::runtime_error on a CUDA error.
bool capture_if(cudaStream_t stream, const int* flag_device, const std::function<void()>& body,
                cudaStreamCaptureMode foreign_mode = cudaStreamCaptureModeGlobal);

/// Keeps `owner` alive as long as `graph` and everything CUDA derives from it: the
/// graph, its clones and the executable graphs instantiated from it (including
/// their launches still in flight). Implemented with a CUDA user object
/// (cudaUserObjectCreate + cudaGraphRetainUserObject with cudaGraphUserObjectMove)
/// whose one reference is moved into the graph. `graph` may be a graph still being
/// captured (see capture_graph()): this is how a producer recorded into a caller's
/// capture outlives the caller's handle to the producer.
///
/// When CUDA drops the last reference, its destructor callback runs on a CUDA
/// internal thread that must not call CUDA; it therefore only queues the owner,
/// and the owner is released (its destructor runs, typically freeing device
/// memory) by the next release_retained_owners() call. Throws std::invalid_argument
/// for a null graph or owner, std::runtime_error on a CUDA error (then `owner` is
/// not retained: it is released by a later release_retained_owners() call).
void retain(cudaGraph_t graph, std::shared_ptr<void> owner);

/// Releases the owners whose graphs CUDA has finished with (see retain()) on the
/// calling thread and returns how many were released. Call it where CUDA calls are
/// legal: not while this thread captures a stream in Global or ThreadLocal mode,
/// nor while another thread holds a Global-mode capture (the owners' destructors
/// may free memory). The execution layer calls it at the start of its host-side
/// operations outside captures. Owners still queued at process exit are never
/// released (their destructors would run after the CUDA runtime shut down).
std::size_t release_retained_owners();

}  // namespace trackgen::cuda_exec
