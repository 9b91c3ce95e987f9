// The field lists of Track and GateSequence (trackgen/core/fields.hpp): the
// list covers every member of the struct, and every field reaches clone(),
// window(), the masked lane and the course line (the HDF5 datasets, the MPI
// gather and the Python objects are checked in tests/io, mpi/tests and
// python/tests with the same field lists).
#include "field_support.hpp"
#include "gate_support.hpp"
#include "support.hpp"

#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/runtime/course_line.hpp>

#include <set>
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
