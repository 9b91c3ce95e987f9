// The HDF5 layer (trackgen/io/hdf5.hpp): a batch written and read back through
// the library's reader is bit-identical field by field (NaN padding included),
// the attributes round-trip the config, streaming chunks equals one batch,
// bad input is refused before anything reaches the target, and, when h5dump
// is installed, an independent reader sees the same bytes.
#include "../gate_support.hpp"
#include "../test_pipeline_support.hpp"

#include <trackgen/io/hdf5.hpp>
#include <trackgen/pipeline/chunked.hpp>
#include <trackgen/version.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace trackgen;
namespace tt = trackgen::test;
namespace fs = std::filesystem;

/// A fresh, empty folder for one test case on one space.
fs::path scratch_folder(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("trackgen-hdf5-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::vector<std::int32_t> arange_seeds(std::int32_t k, int first, int n) {
  std::vector<std::int32_t> s;
  for (int i = 0; i < n; ++i) s.push_back(expand_seed(k, first + i, SeedExpansion::arange));
  return s;
}

/// The config's JSON text, as the writers store it.
std::string json_text(const TrackGenConfig& c) { return nlohmann::json(c).dump(); }

bool h5dump_available() { return std::system("command -v h5dump >/dev/null 2>&1") == 0; }

/// The raw little-endian bytes of dataset `name` as h5dump writes them.
std::string h5dump_bytes(const fs::path& file, const std::string& name, const fs::path& folder) {
  const fs::path out = folder / (name + ".bin");
  const std::string cmd = "h5dump -d /" + name + " -b LE -o '" + out.string() + "' '" + file.string() + "' >/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream f(out, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

/// h5dump's text of attribute `name` of the root group.
std::string h5dump_attribute(const fs::path& file, const std::string& name, const fs::path& folder) {
  const fs::path out = folder / (name + ".txt");
  const std::string cmd = "h5dump -a /" + name + " '" + file.string() + "' > '" + out.string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream f(out);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

/// The number of datasets in the file, as h5dump lists them.
std::size_t h5dump_dataset_count(const fs::path& file, const fs::path& folder) {
  const fs::path out = folder / "contents.txt";
  const std::string cmd = "h5dump -n '" + file.string() + "' > '" + out.string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream f(out);
  std::size_t n = 0;
  for (std::string line; std::getline(f, line);) n += line.find(" dataset ") != std::string::npos ? 1 : 0;
  return n;
}

template <class V>
std::string raw_bytes(const V& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.extent(0) * sizeof(typename V::value_type));
}

}  // namespace

TEMPLATE_TEST_CASE("HDF5 track file round trip: every field bit for bit, attributes", "[hdf5]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const fs::path dir = scratch_folder(std::string("tracks-") + Space::name());
  TrackGenConfig c;
  c.generator = "bezier";
  c.num_envs = 9;
  c.N_max = 200;  // a stride that pads most tracks with NaN and truncates some
  TrackGenerator<Space> gen(c, SeedState<Space>(c.num_envs, 11));
  gen.generate();
  const auto seeds = arange_seeds(11, 0, c.num_envs);
  const fs::path file = dir / "sub" / "tracks.h5";
  io::write_tracks(file.string(), gen.track(), seeds, c, Space::name());
  CHECK(std::distance(fs::directory_iterator(file.parent_path()), fs::directory_iterator()) == 1);  // no temporary

  const io::TrackFile f = io::read_tracks(file.string());
  const tt::HostTrack want = tt::HostTrack::from(gen.track());
  CHECK(f.track.num_envs() == c.num_envs);
  CHECK(f.track.n_max() == c.N_max);
  CHECK(tt::HostTrack::from(f.track).bitwise_equal(want));
  CHECK(f.seeds == seeds);
  CHECK(f.attributes.config_json == json_text(c));
  CHECK(json_text(f.config) == json_text(c));
  CHECK(f.attributes.backend == Space::name());
  CHECK(f.attributes.version == trackgen::version());
  CHECK(f.attributes.git_revision == trackgen::git_revision());

  if (h5dump_available()) {
    const auto host = gen.track().to_host();
    // Every field of the Track's list is a dataset the independent reader
    // finds, with the field's bytes; the file holds nothing else but the seeds.
    Track<Kokkos::HostSpace>::for_each_field(host, [&](const char* name, const auto& view, auto) {
      INFO("dataset " << name);
      CHECK(h5dump_bytes(file, name, dir) == raw_bytes(view));
    });
    CHECK(h5dump_dataset_count(file, dir) == field_infos<Track<Kokkos::HostSpace>>().size() + 1);
    CHECK(h5dump_bytes(file, "seeds", dir) ==
          std::string(reinterpret_cast<const char*>(seeds.data()), seeds.size() * sizeof(std::int32_t)));
    CHECK_THAT(h5dump_attribute(file, "backend", dir), Catch::Contains(std::string("\"") + Space::name() + "\""));
    CHECK_THAT(h5dump_attribute(file, "format", dir), Catch::Contains("\"trackgen-tracks\""));
  } else {
    WARN("h5dump not installed (Debian: hdf5-tools): the independent reader's check is skipped");
  }
  fs::remove_all(dir);
}

TEMPLATE_TEST_CASE("HDF5 streamed chunks equal the one-batch file", "[hdf5]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const fs::path dir = scratch_folder(std::string("stream-") + Space::name());
  TrackGenConfig c;
  c.generator = "voronoi";
  c.num_envs = 11;
  const std::int32_t k = 3;
  io::TrackFileWriter w((dir / "tracks.h5").string(), c, Space::name());
  CHECK(w.num_envs() == 11);
  generate_chunked(Space(), c, k, 4, [&](int first, int n, const TrackGenerator<Space>& gen) {
    w.append(gen.track(), arange_seeds(k, first, n), n);  // the last chunk: 3 of its 4 envs
    CHECK(w.envs_written() == first + n);
  });
  CHECK_FALSE(fs::exists(dir / "tracks.h5"));  // only the temporary until close()
  w.close();
  const io::TrackFile f = io::read_tracks((dir / "tracks.h5").string());
  TrackGenerator<Space> whole(c, SeedState<Space>(c.num_envs, k));
  CHECK(tt::HostTrack::from(f.track).bitwise_equal(tt::HostTrack::from(whole.generate())));
  CHECK(f.seeds == arange_seeds(k, 0, c.num_envs));
  fs::remove_all(dir);
}

TEMPLATE_TEST_CASE("HDF5 gate file round trip", "[hdf5]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const fs::path dir = scratch_folder(std::string("gates-") + Space::name());
  const GateGenConfig c = tt::gate_config("polar", 7);
  GateGenerator<Space> gen(c, SeedState<Space>(c.num_envs, 5));
  gen.generate();
  const auto seeds = arange_seeds(5, 0, c.num_envs);
  io::write_gates((dir / "gates.h5").string(), gen.gates(), seeds, c, Space::name());
  const io::GateFile f = io::read_gates((dir / "gates.h5").string());
  CHECK(tt::same_bits(f.gates, gen.gates().to_host()));
  CHECK(f.gates.max_gates() == c.max_gates);
  CHECK(f.seeds == seeds);
  CHECK(nlohmann::json(f.config).dump() == nlohmann::json(c).dump());
  CHECK(f.attributes.config_json == nlohmann::json(c).dump());
  CHECK(f.attributes.backend == Space::name());
  if (h5dump_available()) {
    GateSequence<Kokkos::HostSpace>::for_each_field(f.gates, [&](const char* name, const auto& view, auto) {
      INFO("dataset " << name);
      CHECK(h5dump_bytes(dir / "gates.h5", name, dir) == raw_bytes(view));
    });
    CHECK(h5dump_dataset_count(dir / "gates.h5", dir) == field_infos<GateSequence<Kokkos::HostSpace>>().size() + 1);
  }
  // A gate file is not a track file.
  CHECK_THROWS_WITH(io::read_tracks((dir / "gates.h5").string()),
                    Catch::Contains("read_tracks") && Catch::Contains("trackgen-gates"));
  fs::remove_all(dir);
}

TEMPLATE_TEST_CASE("HDF5 writer refuses bad chunks and never leaves a partial file", "[hdf5]", TRACKGEN_TEST_SPACES) {
  using Space = TestType;
  const fs::path dir = scratch_folder(std::string("errors-") + Space::name());
  const fs::path file = dir / "tracks.h5";
  TrackGenConfig c;
  c.num_envs = 4;
  TrackGenConfig small = c;
  small.num_envs = 3;
  small.N_max = 100;
  TrackGenerator<Space> gen(small, SeedState<Space>(small.num_envs, 0));
  gen.generate();
  {
    io::TrackFileWriter w(file.string(), c, Space::name());
    CHECK_THROWS_WITH(w.append(gen.track(), arange_seeds(0, 0, 3)),
                      Catch::Contains("TrackFileWriter::append") && Catch::Contains("N_max") && Catch::Contains("100"));
    CHECK(w.envs_written() == 0);
    CHECK_THROWS_WITH(w.close(), Catch::Contains("0 of 4"));
  }
  CHECK(fs::is_empty(dir));  // neither the target nor the temporary
  {
    TrackGenConfig three = c;
    three.num_envs = 3;
    TrackGenerator<Space> g3(three, SeedState<Space>(3, 0));
    g3.generate();
    io::TrackFileWriter w(file.string(), c, Space::name());
    CHECK_THROWS_WITH(w.append(g3.track(), arange_seeds(0, 0, 2)), Catch::Contains("seeds"));
    CHECK_THROWS_WITH(w.append(g3.track(), arange_seeds(0, 0, 4), 4),
                      Catch::Contains("envs") && Catch::Contains("num_envs 3") && Catch::Contains("got 4"));
    w.append(g3.track(), arange_seeds(0, 0, 3));
    CHECK_THROWS_WITH(w.append(g3.track(), arange_seeds(0, 3, 3)),
                      Catch::Contains("num_envs 3") && Catch::Contains("1 envs left"));
  }  // destroyed without close(): nothing written
  CHECK(fs::is_empty(dir));
  TrackGenConfig bad = c;
  bad.num_envs = 0;
  CHECK_THROWS_AS(io::TrackFileWriter(file.string(), bad, "x"), ConfigError);

  CHECK_THROWS_WITH(io::read_tracks((dir / "missing.h5").string()), Catch::Contains("does not exist"));
  std::ofstream(dir / "text.h5") << "not hdf5\n";
  CHECK_THROWS_WITH(io::read_tracks((dir / "text.h5").string()), Catch::Contains("is not an HDF5 file"));
  fs::remove_all(dir);
}
