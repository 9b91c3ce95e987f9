// The field lists of Track and GateSequence (trackgen/core/fields.hpp): the
// list covers every member of the struct, and every field reaches clone(),
// window(), the masked lane and the course line (the HDF5 datasets, the MPI
// gather and the Python objects are checked in tests/io, mpi/tests and
// python/tests with the same field lists). A small output format written by
// the recipe of docs/design.md#adding-an-output-format round-trips every field.
#include "field_support.hpp"
#include "gate_support.hpp"
#include "support.hpp"

#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/runtime/course_line.hpp>

#include <cstdint>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace trackgen;
namespace tt = trackgen::test;

namespace {

/// Bytes of the members the field list of Batch visits, besides its two int
/// sizes (num_envs and the stride).
template <class Batch>
std::size_t listed_bytes() {
  std::size_t bytes = 2 * sizeof(int);
  Batch b;
  Batch::for_each_field(b, [&](const char*, const auto& view, auto) { bytes += sizeof(view); });
  return bytes;
}

template <class Batch>
std::set<std::string> names_of() {
  std::set<std::string> names;
  for (const FieldInfo& f : field_infos<Batch>()) names.insert(f.name);
  return names;
}

/// A minimal binary format of a host batch, by the recipe: E and the stride,
/// then per field of the list its name, per-point flag, components and bytes.
template <class Batch>
std::string write_batch(const Batch& b, int stride) {
  std::ostringstream out;
  const auto put = [&](std::int32_t v) { out.write(reinterpret_cast<const char*>(&v), sizeof v); };
  put(b.num_envs());
  put(stride);
  Batch::for_each_field(b, [&](const char* name, const auto& view, auto shape) {
    using T = typename std::decay_t<decltype(view)>::value_type;
    put(static_cast<std::int32_t>(std::strlen(name)));
    out << name;
    put(decltype(shape)::value ? 1 : 0);
    put(field_components<T>());
    out.write(reinterpret_cast<const char*>(view.data()), static_cast<std::streamsize>(view.extent(0) * sizeof(T)));
  });
  return out.str();
}

/// Reads write_batch's bytes back into a Batch; std::runtime_error naming the
/// field for a missing or mis-shaped one.
template <class Batch>
Batch read_batch(const std::string& bytes) {
  std::istringstream in(bytes);
  const auto get = [&] {
    std::int32_t v = 0;
    in.read(reinterpret_cast<char*>(&v), sizeof v);
    return v;
  };
  const int E = get(), stride = get();
  Batch b(Kokkos::DefaultHostExecutionSpace(), E, stride);
  Batch::for_each_field(b, [&](const char* name, const auto& view, auto shape) {
    using T = typename std::decay_t<decltype(view)>::value_type;
    std::string stored(static_cast<std::size_t>(get()), '\0');
    in.read(stored.data(), static_cast<std::streamsize>(stored.size()));
    const bool per_point = get() != 0;
    const int components = get();
    if (!in || stored != name || per_point != decltype(shape)::value || components != field_components<T>()) {
      throw std::runtime_error(std::string("read_batch: field ") + name + " is missing or has another shape");
    }
    in.read(reinterpret_cast<char*>(view.data()), static_cast<std::streamsize>(view.extent(0) * sizeof(T)));
  });
  return b;
}

}  // namespace

TEMPLATE_TEST_CASE("Track and GateSequence: the field list holds every member, once", "[track][fields]",
                   TRACKGEN_TEST_SPACES) {
  using M = typename TestType::memory_space;
  // A member added to the struct but not to its list changes the struct's size
  // and fails here: every output iterates the list.
  CHECK(sizeof(Track<M>) == listed_bytes<Track<M>>());
  CHECK(sizeof(GateSequence<M>) == listed_bytes<GateSequence<M>>());
  const auto track = field_infos<Track<M>>();
  const auto gates = field_infos<GateSequence<M>>();
  CHECK(names_of<Track<M>>().size() == track.size());
  CHECK(names_of<GateSequence<M>>().size() == gates.size());
  CHECK(names_of<Track<M>>().count("sep_overflow") == 1);
  CHECK(names_of<Track<M>>().count("invalid_reason") == 1);
  for (const FieldInfo& f : track) {
    INFO(f.name);
    CHECK((f.components == 1 || f.components == 3));
  }
}

TEMPLATE_TEST_CASE("Track and GateSequence: clone, window and to_host carry every field", "[track][fields]",
                   TRACKGEN_TEST_SPACES) {
  using M = typename TestType::memory_space;
  const Track<M> t(TestType(), 4, 5);
  tt::fill_field_patterns(t);
  const auto host = t.to_host();
  CHECK(tt::differing_fields(t.clone().to_host(), host).empty());
  CHECK(tt::differing_fields(t.window(1, 2).to_host(), 0, host, 1, 2).empty());
  // A pattern differs from a fresh Track in every field (the check can fail).
  CHECK(tt::differing_fields(Track<M>(TestType(), 4, 5).to_host(), host).size() == field_infos<Track<M>>().size());

  const GateSequence<M> g(TestType(), 3, 6);
  tt::fill_field_patterns(g);
  CHECK(tt::differing_fields(g.clone().to_host(), g.to_host()).empty());
}

TEMPLATE_TEST_CASE("CourseLine: a refresh writes every Track field of the line", "[course][fields]",
                   TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const GateGenConfig c = tt::gate_config("polar", 5);
  GateGenerator<Space> gen(c, SeedState<Space>(c.num_envs, 3));
  gen.generate();
  CourseLine<Space> fresh(Space(), gen.gates());
  CourseLine<Space> line(Space(), gen.gates());
  tt::fill_field_patterns(line.line());  // every field of every env overwritten below
  line.refresh();
  Space().fence();
  CHECK(tt::differing_fields(line.line().to_host(), fresh.line().to_host()).empty());
}

TEST_CASE("An output format written by the recipe round-trips every field", "[track][fields]") {
  using HostTrack = Track<Kokkos::HostSpace>;
  const HostTrack t(4, 6);
  tt::fill_field_patterns(t);
  const std::string bytes = write_batch(t, t.n_max());
  CHECK(tt::differing_fields(read_batch<HostTrack>(bytes), t).empty());
  using HostGates = GateSequence<Kokkos::HostSpace>;
  const HostGates g(Kokkos::DefaultHostExecutionSpace(), 3, 5);
  tt::fill_field_patterns(g);
  CHECK(tt::differing_fields(read_batch<HostGates>(write_batch(g, g.max_gates())), g).empty());
  // A file missing a field is refused naming it.
  CHECK_THROWS_WITH(read_batch<HostTrack>(bytes.substr(0, bytes.size() / 2)), Catch::Contains("read_batch: field"));
}
