// The Kokkos::Cuda side of the execution layer: a producer's self-graph as a CUDA
// graph, captured with cudaStreamBeginCapture on the stream of its Kokkos::Cuda
// instance (`space.cuda_stream()`) and replayed with cudaGraphLaunch on that
// stream, through the plain-CUDA executor in exec/cuda (trackgen::cuda_exec).
//
// Built only where both exist: a Kokkos with the CUDA backend (KOKKOS_ENABLE_CUDA)
// and the CUDA executor (TRACKGEN_HAS_CUDA_EXECUTOR, set by the CMake option
// TRACKGEN_ENABLE_CUDA_EXECUTOR, ON by default when Kokkos has CUDA). Then
// TRACKGEN_EXEC_CUDA is 1 and `cuda_graphs_v<Kokkos::Cuda>` is true; everywhere
// else TRACKGEN_EXEC_CUDA is 0, `cuda_graphs_v<Space>` is false, and this header
// declares nothing else (host builds are unchanged).
#pragma once

#include <trackgen/core/errors.hpp>
#include <trackgen/core/views.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && defined(TRACKGEN_HAS_CUDA_EXECUTOR)
#define TRACKGEN_EXEC_CUDA 1
#include <trackgen/exec/cuda/graph.hpp>

#include <memory>
#include <utility>
#else
#define TRACKGEN_EXEC_CUDA 0
#endif

namespace trackgen {

/// Whether the execution layer captures and replays CUDA graphs on `Space`
/// (Kokkos::Cuda with the CUDA executor built in).
template <class Space>
inline constexpr bool cuda_graphs_v = false;

#if TRACKGEN_EXEC_CUDA
template <>
inline constexpr bool cuda_graphs_v<Kokkos::Cuda> = true;

/// A producer's self-graph on Kokkos::Cuda: the captured CUDA graph (kept for
/// inspection) and its executable instance.
class CudaGraph {
 public:
  /// Instantiates `graph` (a captured graph) for replay.
  explicit CudaGraph(cuda_exec::Graph graph) : graph_(std::move(graph)), exec_(cuda_exec::instantiate(graph_)) {}

  /// Enqueues one replay on the stream of `space` (asynchronous: no host sync).
  void replay(const Kokkos::Cuda& space) const { exec_.launch(space.cuda_stream()); }

  /// The captured graph (e.g. its node counts: one conditional node per
  /// skip_unless or bounded_loop window recorded with a device-side check).
  const cuda_exec::Graph& graph() const { return graph_; }

 private:
  cuda_exec::Graph graph_;
  cuda_exec::GraphExec exec_;
};

/// Captures everything `body()` enqueues on the stream of `space` into a new
/// CudaGraph (thread-local capture mode: an allocation, free or host sync made by
/// this thread while capturing fails instead of corrupting the graph). If `body`
/// throws, the capture is aborted and the exception propagates. The stream must
/// not be capturing already.
template <class Body>
CudaGraph capture_cuda_graph(const Kokkos::Cuda& space, const Body& body) {
  cuda_exec::StreamCapture capture(space.cuda_stream());
  body();
  return CudaGraph(capture.end());
}

namespace exec {

/// Keeps `owner` alive as long as the CUDA graph that the stream of `space` is
/// capturing into, and everything CUDA derives from it (its executable instances
/// and their launches in flight), through a CUDA user object. The C++ analogue of
/// the original system's retain(graph, producer): call it inside your capture with the
/// shared_ptr that owns a producer recorded into it. The owner is released on a
/// later call into the execution layer outside a capture (see
/// cuda_exec::release_retained_owners). CaptureError when the stream is not
/// capturing; std::invalid_argument for a null owner.
inline void retain(const Kokkos::Cuda& space, std::shared_ptr<void> owner) {
  cudaGraph_t graph = cuda_exec::capture_graph(space.cuda_stream());
  if (graph == nullptr) {
    throw CaptureError("trackgen::exec::retain: the stream of the Kokkos::Cuda instance is not capturing");
  }
  cuda_exec::retain(graph, std::move(owner));
}

}  // namespace exec
#endif  // TRACKGEN_EXEC_CUDA

}  // namespace trackgen
