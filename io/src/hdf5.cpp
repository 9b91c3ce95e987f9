// The HDF5 reader and writers of trackgen/io/hdf5.hpp, on the HDF5 C library.
// A batch file holds one dataset per field of the container's own field list
// (Track::for_each_field, GateSequence::for_each_field), then the seeds; the
// writer and the reader walk that list.
#include <trackgen/io/hdf5.hpp>
#include <trackgen/version.hpp>

#include <hdf5.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace trackgen::io {
namespace {

static_assert(sizeof(Vec3f) == 3 * sizeof(float), "Vec3f must be three packed floats");
static_assert(sizeof(Quatf) == 4 * sizeof(float), "Quatf must be four packed floats");

constexpr int format_version = 1;
constexpr unsigned deflate_level = 1;
constexpr std::size_t target_chunk_bytes = std::size_t(1) << 20;  // ~1 MiB per HDF5 chunk
constexpr std::size_t chunk_cache_bytes = std::size_t(4) << 20;   // per dataset, holds a chunk across appends
/// Owns an HDF5 identifier; closes it with `close`.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }
  /// Closes now; the status of the close (negative on failure).
  herr_t reset() {
    herr_t rc = 0;
    if (id_ >= 0 && close_ != nullptr) rc = close_(id_);
    id_ = H5I_INVALID_HID;
    return rc;
  }
  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

/// Keeps HDF5 from printing its error stack while alive (our exceptions carry
/// the innermost message instead); restores the caller's handler after.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// The innermost message of HDF5's error stack (then cleared).
std::string hdf5_message() {
  std::string msg;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        if (n == 0 && e->desc != nullptr) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &msg);
  H5Eclear2(H5E_DEFAULT);
  return msg.empty() ? "HDF5 error" : msg;
}

/// The API and file an operation is about, for error messages.
struct Where {
  std::string api;
  std::string path;
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(api + ": " + what + " ('" + path + "'): " + hdf5_message());
  }
  [[noreturn]] void bad_file(const std::string& what) const {
    throw std::runtime_error(api + ": '" + path + "' " + what);
  }
  /// `id` unless negative (then fail(what)).
  hid_t check(hid_t id, const std::string& what) const {
    if (id < 0) fail(what);
    return id;
  }
  void check_status(herr_t rc, const std::string& what) const {
    if (rc < 0) fail(what);
  }
};

void write_string_attribute(const Where& w, hid_t obj, const char* name, const std::string& value) {
  Handle type(w.check(H5Tcopy(H5T_C_S1), "copy the string type"), H5Tclose);
  w.check_status(H5Tset_size(type, std::max<std::size_t>(value.size(), 1)), "size a string type");
  w.check_status(H5Tset_strpad(type, H5T_STR_NULLPAD), "pad a string type");
  w.check_status(H5Tset_cset(type, H5T_CSET_UTF8), "set a string type's character set");
  Handle space(w.check(H5Screate(H5S_SCALAR), "create a scalar dataspace"), H5Sclose);
  Handle attr(
      w.check(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), std::string("create attribute ") + name),
      H5Aclose);
  w.check_status(H5Awrite(attr, type, value.c_str()), std::string("write attribute ") + name);
}

void write_int_attribute(const Where& w, hid_t obj, const char* name, std::int32_t value) {
  Handle space(w.check(H5Screate(H5S_SCALAR), "create a scalar dataspace"), H5Sclose);
  Handle attr(w.check(H5Acreate2(obj, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT),
                      std::string("create attribute ") + name),
              H5Aclose);
  w.check_status(H5Awrite(attr, H5T_NATIVE_INT32, &value), std::string("write attribute ") + name);
}

std::string read_string_attribute(const Where& w, hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0) w.bad_file(std::string("has no attribute '") + name + "' (not a TrackGen file?)");
  Handle attr(w.check(H5Aopen(obj, name, H5P_DEFAULT), std::string("open attribute ") + name), H5Aclose);
  Handle ftype(w.check(H5Aget_type(attr), std::string("read the type of attribute ") + name), H5Tclose);
  if (H5Tget_class(ftype) != H5T_STRING || H5Tis_variable_str(ftype) > 0) {
    w.bad_file(std::string("attribute '") + name + "' is not a fixed-length string");
  }
  const std::size_t size = H5Tget_size(ftype);
  Handle mtype(w.check(H5Tcopy(H5T_C_S1), "copy the string type"), H5Tclose);
  w.check_status(H5Tset_size(mtype, size), "size a string type");
  w.check_status(H5Tset_strpad(mtype, H5T_STR_NULLPAD), "pad a string type");
  w.check_status(H5Tset_cset(mtype, H5Tget_cset(ftype)), "set a string type's character set");
  std::string s(size, '\0');
  w.check_status(H5Aread(attr, mtype, s.data()), std::string("read attribute ") + name);
  s.erase(s.find_last_not_of('\0') + 1);
  return s;
}

std::int32_t read_int_attribute(const Where& w, hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0) w.bad_file(std::string("has no attribute '") + name + "' (not a TrackGen file?)");
  Handle attr(w.check(H5Aopen(obj, name, H5P_DEFAULT), std::string("open attribute ") + name), H5Aclose);
  std::int32_t v = 0;
  w.check_status(H5Aread(attr, H5T_NATIVE_INT32, &v), std::string("read attribute ") + name);
  return v;
}

/// A temporary file name beside `path`: ".NAME.tmp-PID-K", K counting the
/// names this process tried (a stale file of an earlier process with the
/// same pid takes the next K).
std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.parent_path() /
         ("." + path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

/// The folders from `dir` up that do not exist, outermost first.
std::vector<std::filesystem::path> missing_folders(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> missing;
  std::error_code ec;
  for (std::filesystem::path d = dir; !d.empty() && !std::filesystem::exists(d, ec) && d != d.parent_path();
       d = d.parent_path()) {
    missing.insert(missing.begin(), d);
  }
  return missing;
}

/// What a signal handler removes for the open writers (remove_temporaries_on_signal):
/// per slot, NUL-separated absolute names, the temporary first, then the
/// folders its writer created, innermost first; an empty name ends the list.
/// A slot is armed (1) while its writer is open with nothing renamed.
struct CleanupSlot {
  std::atomic<int> armed{0};
  char names[8192] = {};
};
constexpr int cleanup_slots = 16;
CleanupSlot cleanup[cleanup_slots];
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler reads the slots' flags");

/// Arms a free slot with the temporary `tmp` and the folders `created`
/// (outermost first); -1 when every slot is taken or the names do not fit
/// (the writer then still cleans up after itself, only not on a signal).
int arm_cleanup(const std::filesystem::path& tmp, const std::vector<std::filesystem::path>& created) {
  std::string names;
  std::error_code ec;
  names += std::filesystem::absolute(tmp, ec).string();
  names += '\0';
  for (auto d = created.rbegin(); d != created.rend(); ++d) {
    names += std::filesystem::absolute(*d, ec).string();
    names += '\0';
  }
  names += '\0';
  for (int i = 0; i < cleanup_slots; ++i) {
    if (names.size() > sizeof(cleanup[i].names)) return -1;
    int expected = 0;
    if (!cleanup[i].armed.compare_exchange_strong(expected, 2)) continue;  // 2: being written
    std::memcpy(cleanup[i].names, names.data(), names.size());
    cleanup[i].armed.store(1);
    return i;
  }
  return -1;
}

/// Disarms slot `i` (-1: none).
void disarm_cleanup(int i) {
  if (i >= 0) cleanup[i].armed.store(0);
}

}  // namespace

namespace detail {

/// One dataset of a batch file: its name, scalar type and shape per env.
struct DatasetSpec {
  std::string name;
  bool is_float = true;
  int components = 1;  ///< 3 for points, 4 for quaternions, 1 for scalars
  bool per_point = false;
};

/// The dataset list of a container type: its fields, then the seeds.
template <class Batch>
std::vector<DatasetSpec> dataset_specs() {
  std::vector<DatasetSpec> specs;
  for (const FieldInfo& f : field_infos<Batch>()) specs.push_back({f.name, f.is_float, f.components, f.per_point});
  specs.push_back({"seeds", false, 1, false});
  return specs;
}

/// The container-independent writer behind TrackFileWriter and GateFileWriter.
class BatchFileWriter {
 public:
  BatchFileWriter(std::string api, const std::string& path, const char* format, int num_envs, int stride,
                  std::vector<DatasetSpec> specs, const FileAttributes& attributes)
      : where_{std::move(api), path}, target_(path), num_envs_(num_envs), stride_(stride), specs_(std::move(specs)) {
    QuietErrors quiet;
    if (target_.has_parent_path()) {
      for (const auto& d : missing_folders(target_.parent_path())) {
        std::error_code ec;
        if (!std::filesystem::create_directory(d, ec) && ec) {
          remove_created_folders();
          throw std::runtime_error(where_.api + ": cannot create the folder '" + d.string() + "': " + ec.message());
        }
        created_.push_back(d);
      }
    }
    // A name taken by a stale temporary (an earlier run's, killed before it
    // could remove it) is skipped for the next one.
    for (int attempt = 0;; ++attempt) {
      temporary_ = temporary_beside(target_);
      file_ = Handle(H5Fcreate(temporary_.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
      if (file_.get() >= 0) break;
      std::error_code ec;
      if (attempt < 100 &&
          std::filesystem::symlink_status(temporary_, ec).type() != std::filesystem::file_type::not_found) {
        H5Eclear2(H5E_DEFAULT);
        continue;
      }
      remove_created_folders();
      where_.path = temporary_.string();
      where_.fail("cannot create the temporary file");
    }
    slot_ = arm_cleanup(temporary_, created_);
    try {
      write_string_attribute(where_, file_, "format", format);
      write_int_attribute(where_, file_, "format_version", format_version);
      write_string_attribute(where_, file_, "config", attributes.config_json);
      write_string_attribute(where_, file_, "backend", attributes.backend);
      write_string_attribute(where_, file_, "trackgen_version", attributes.version);
      write_string_attribute(where_, file_, "git_revision", attributes.git_revision);
      if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0) where_.fail("the HDF5 library lacks the deflate filter");
      for (const DatasetSpec& s : specs_) datasets_.push_back(create_dataset(s));
    } catch (...) {
      discard();
      throw;
    }
  }

  ~BatchFileWriter() {
    QuietErrors quiet;
    if (!closed_) discard();
  }

  /// Checks the chunk's shape before anything is written.
  /// The envs to write (`envs`, or all of the chunk's when -1).
  int check_chunk(int chunk_envs, int envs, int chunk_stride, std::size_t num_seeds, const char* stride_name) const {
    if (closed_) throw ConfigError(where_.api + "::append: the file is already closed");
    if (envs < -1 || envs > chunk_envs) {
      throw ConfigError(where_.api + "::append: envs must be -1 (all) or at most the chunk's num_envs " +
                        std::to_string(chunk_envs) + ", got " + std::to_string(envs));
    }
    if (envs == -1) envs = chunk_envs;
    if (chunk_stride != stride_) {
      throw ConfigError(where_.api + "::append: chunk " + stride_name + " must equal the config's " + stride_name +
                        " " + std::to_string(stride_) + ", got " + std::to_string(chunk_stride));
    }
    if (num_seeds != static_cast<std::size_t>(envs)) {
      throw ConfigError(where_.api + "::append: seeds must hold one seed per env appended (" + std::to_string(envs) +
                        "), got " + std::to_string(num_seeds));
    }
    if (envs > num_envs_ - written_) {
      throw ConfigError(where_.api + "::append: chunk num_envs " + std::to_string(envs) + " exceeds the " +
                        std::to_string(num_envs_ - written_) + " envs left of the file's " + std::to_string(num_envs_));
    }
    return envs;
  }

  /// Writes rows [written_, written_ + n) of every dataset from `data` (one
  /// pointer per spec, in order).
  void append(int n, const std::vector<const void*>& data) {
    QuietErrors quiet;
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      const DatasetSpec& s = specs_[i];
      const int rank = dataset_rank(s);
      const hsize_t start[3] = {hsize_t(written_), 0, 0};
      const hsize_t count[3] = {hsize_t(n), hsize_t(stride_), hsize_t(s.components)};
      Handle fspace(where_.check(H5Dget_space(datasets_[i]), "get the dataspace of " + s.name), H5Sclose);
      where_.check_status(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr),
                          "select rows of " + s.name);
      Handle mspace(where_.check(H5Screate_simple(rank, count, nullptr), "create a memory dataspace"), H5Sclose);
      where_.check_status(H5Dwrite(datasets_[i], s.is_float ? H5T_NATIVE_FLOAT : H5T_NATIVE_INT32, mspace, fspace,
                                   H5P_DEFAULT, data[i]),
                          "write " + s.name);
    }
    written_ += n;
  }

  void close() {
    if (closed_) return;
    if (written_ != num_envs_) {
      throw std::runtime_error(where_.api + "::close: only " + std::to_string(written_) + " of " +
                               std::to_string(num_envs_) + " envs were appended; '" + target_.string() +
                               "' is not written");
    }
    QuietErrors quiet;
    for (Handle& d : datasets_) where_.check_status(d.reset(), "close a dataset");
    where_.check_status(H5Fflush(file_, H5F_SCOPE_GLOBAL), "flush the file");
    where_.check_status(file_.reset(), "close the file");
    std::error_code ec;
    std::filesystem::rename(temporary_, target_, ec);
    if (ec) {
      throw std::runtime_error(where_.api + "::close: cannot rename '" + temporary_.string() + "' to '" +
                               target_.string() + "': " + ec.message());
    }
    disarm_cleanup(slot_);
    closed_ = true;
  }

  int written() const { return written_; }
  int num_envs() const { return num_envs_; }

 private:
  /// Removes the temporary and the folders this writer created (when empty),
  /// and closes the file: nothing reaches the target. After a failed write
  /// (a full disk, a file size limit) HDF5 still holds dirty chunks and
  /// metadata, which it writes when they close: the file is emptied first
  /// (its blocks freed, so that on a full disk those writes find room). A
  /// close that fails anyway leaves the file open inside HDF5 until the
  /// process ends, when HDF5 1.10's exit handler crashes on it unless the
  /// program called H5dont_atexit() first (trackgen does).
  void discard() {
    disarm_cleanup(slot_);
    std::error_code ec;
    std::filesystem::remove(temporary_, ec);
    void* handle = nullptr;
    if (file_.get() >= 0 && H5Fget_vfd_handle(file_, H5P_DEFAULT, &handle) >= 0 && handle != nullptr) {
      [[maybe_unused]] const int rc = ::ftruncate(*static_cast<int*>(handle), 0);  // best effort
    }
    datasets_.clear();
    file_.reset();
    H5Eclear2(H5E_DEFAULT);
    remove_created_folders();
  }

  /// Removes the folders this writer created, innermost first, where empty.
  void remove_created_folders() {
    std::error_code ec;
    for (auto d = created_.rbegin(); d != created_.rend(); ++d) std::filesystem::remove(*d, ec);
    created_.clear();
  }

  static int dataset_rank(const DatasetSpec& s) { return !s.per_point ? 1 : (s.components > 1 ? 3 : 2); }

  Handle create_dataset(const DatasetSpec& s) {
    const int rank = dataset_rank(s);
    const hsize_t dims[3] = {hsize_t(num_envs_), hsize_t(stride_), hsize_t(s.components)};
    const std::size_t row_bytes = (s.per_point ? std::size_t(stride_) : 1) * std::size_t(s.components) * 4;
    const hsize_t rows = std::clamp<std::size_t>(target_chunk_bytes / row_bytes, 1, std::size_t(num_envs_));
    const hsize_t chunk[3] = {rows, hsize_t(stride_), hsize_t(s.components)};
    Handle space(where_.check(H5Screate_simple(rank, dims, nullptr), "create the dataspace of " + s.name), H5Sclose);
    Handle dcpl(where_.check(H5Pcreate(H5P_DATASET_CREATE), "create a property list"), H5Pclose);
    where_.check_status(H5Pset_chunk(dcpl, rank, chunk), "chunk " + s.name);
    where_.check_status(H5Pset_shuffle(dcpl), "shuffle " + s.name);
    where_.check_status(H5Pset_deflate(dcpl, deflate_level), "compress " + s.name);
    Handle dapl(where_.check(H5Pcreate(H5P_DATASET_ACCESS), "create a property list"), H5Pclose);
    where_.check_status(H5Pset_chunk_cache(dapl, H5D_CHUNK_CACHE_NSLOTS_DEFAULT, chunk_cache_bytes, 1.0),
                        "size the chunk cache of " + s.name);
    return Handle(where_.check(H5Dcreate2(file_, s.name.c_str(), s.is_float ? H5T_IEEE_F32LE : H5T_STD_I32LE, space,
                                          H5P_DEFAULT, dcpl, dapl),
                               "create dataset " + s.name),
                  H5Dclose);
  }

  Where where_;
  std::filesystem::path target_, temporary_;
  std::vector<std::filesystem::path> created_;  ///< folders this writer created, outermost first
  int slot_ = -1;                               ///< its slot of `cleanup` (-1: none)
  int num_envs_ = 0, stride_ = 0, written_ = 0;
  std::vector<DatasetSpec> specs_;
  Handle file_;
  std::vector<Handle> datasets_;
  bool closed_ = false;
};

}  // namespace detail

namespace {

FileAttributes attributes_of(const nlohmann::json& config, const std::string& backend) {
  return {config.dump(), backend, trackgen::version(), trackgen::git_revision()};
}

/// Pointers to the chunk's fields in dataset order, then the seeds.
template <class Batch>
std::vector<const void*> field_data(const Batch& b, std::span<const std::int32_t> seeds) {
  std::vector<const void*> data;
  Batch::for_each_field(b, [&](const char*, const auto& view, auto) { data.push_back(view.data()); });
  data.push_back(seeds.data());
  return data;
}

/// Opens `path` and checks its "format" attribute.
Handle open_batch_file(const Where& w, const char* format) {
  if (!std::filesystem::exists(w.path)) w.bad_file("does not exist");
  if (H5Fis_hdf5(w.path.c_str()) <= 0) w.bad_file("is not an HDF5 file");
  Handle file(w.check(H5Fopen(w.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "cannot open"), H5Fclose);
  const std::string f = read_string_attribute(w, file, "format");
  if (f != format) w.bad_file("has format '" + f + "', expected '" + format + "'");
  const std::int32_t v = read_int_attribute(w, file, "format_version");
  if (v != format_version) {
    w.bad_file("has format_version " + std::to_string(v) + "; this TrackGen reads version " +
               std::to_string(format_version));
  }
  return file;
}

FileAttributes read_attributes(const Where& w, hid_t file) {
  return {read_string_attribute(w, file, "config"), read_string_attribute(w, file, "backend"),
          read_string_attribute(w, file, "trackgen_version"), read_string_attribute(w, file, "git_revision")};
}

/// The dimensions of dataset `name` (which must exist, of rank 1 to 3).
std::vector<hsize_t> dataset_dims(const Where& w, hid_t file, const std::string& name) {
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) <= 0) w.bad_file("has no dataset '" + name + "'");
  Handle d(w.check(H5Dopen2(file, name.c_str(), H5P_DEFAULT), "open dataset " + name), H5Dclose);
  Handle space(w.check(H5Dget_space(d), "get the dataspace of " + name), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 1 || rank > 3) w.bad_file("dataset '" + name + "' has rank " + std::to_string(rank));
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  return dims;
}

std::string dims_text(const std::vector<hsize_t>& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

/// Reads dataset `name` whole into `out` after checking its shape is `want`.
void read_dataset(const Where& w, hid_t file, const std::string& name, const std::vector<hsize_t>& want, bool is_float,
                  void* out) {
  const std::vector<hsize_t> dims = dataset_dims(w, file, name);
  if (dims != want) w.bad_file("dataset '" + name + "' has shape " + dims_text(dims) + ", expected " + dims_text(want));
  Handle d(w.check(H5Dopen2(file, name.c_str(), H5P_DEFAULT), "open dataset " + name), H5Dclose);
  w.check_status(H5Dread(d, is_float ? H5T_NATIVE_FLOAT : H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, out),
                 "read dataset " + name);
}

/// Reads a whole batch file: E from the seeds, the stride from `shape_of`
/// (a per-point dataset), then every field of the Batch's list into a
/// Batch(E, stride).
template <class Batch>
Batch read_batch(const Where& w, hid_t file, const char* shape_of, std::vector<std::int32_t>& seeds) {
  const std::vector<hsize_t> e = dataset_dims(w, file, "seeds");
  const std::vector<hsize_t> p = dataset_dims(w, file, shape_of);
  if (e.size() != 1 || p.size() < 2 || p[0] != e[0] || e[0] < 1 || p[1] < 1) {
    w.bad_file("has inconsistent shapes: seeds " + dims_text(e) + ", " + shape_of + " " + dims_text(p));
  }
  const int E = static_cast<int>(e[0]), S = static_cast<int>(p[1]);
  Batch b(Kokkos::DefaultHostExecutionSpace(), E, S);
  Batch::for_each_field(b, [&](const char* name, auto& view, auto shape) {
    using T = typename std::decay_t<decltype(view)>::value_type;
    std::vector<hsize_t> want{hsize_t(E)};
    if (decltype(shape)::value) want.push_back(hsize_t(S));
    if (field_components<T>() > 1) want.push_back(hsize_t(field_components<T>()));
    read_dataset(w, file, name, want, field_is_float<T>(), view.data());
  });
  seeds.assign(static_cast<std::size_t>(E), 0);
  read_dataset(w, file, "seeds", {hsize_t(E)}, false, seeds.data());
  return b;
}

/// A config parsed from the file's JSON attribute (errors name the file).
template <class Config>
Config parse_config(const Where& w, const std::string& json) {
  try {
    return nlohmann::json::parse(json).get<Config>();
  } catch (const std::exception& e) {
    w.bad_file(std::string("holds a config that does not parse: ") + e.what());
  }
}

constexpr const char* track_format = "trackgen-tracks";
constexpr const char* gate_format = "trackgen-gates";

}  // namespace

bool disable_hdf5_exit_handler() noexcept { return H5dont_atexit() >= 0; }

void remove_temporaries_on_signal() noexcept {
  for (CleanupSlot& slot : cleanup) {
    if (slot.armed.load() != 1) continue;
    const char* name = slot.names;
    ::unlink(name);  // the temporary
    for (name += std::strlen(name) + 1; *name != '\0'; name += std::strlen(name) + 1) ::rmdir(name);
  }
}

TrackFileWriter::TrackFileWriter(const std::string& path, const TrackGenConfig& config, const std::string& backend) {
  config.validate();
  impl_ = std::make_unique<detail::BatchFileWriter>(
      "trackgen::io::TrackFileWriter", path, track_format, config.num_envs, config.N_max,
      detail::dataset_specs<Track<Kokkos::HostSpace>>(), attributes_of(config, backend));
}

TrackFileWriter::~TrackFileWriter() = default;

void TrackFileWriter::append(const Track<Kokkos::HostSpace>& chunk, std::span<const std::int32_t> seeds, int envs) {
  const int n = impl_->check_chunk(chunk.num_envs(), envs, chunk.n_max(), seeds.size(), "N_max");
  impl_->append(n, field_data(chunk, seeds));
}

int TrackFileWriter::envs_written() const { return impl_->written(); }
int TrackFileWriter::num_envs() const { return impl_->num_envs(); }
void TrackFileWriter::close() { impl_->close(); }

GateFileWriter::GateFileWriter(const std::string& path, const GateGenConfig& config, const std::string& backend) {
  config.validate();
  impl_ = std::make_unique<detail::BatchFileWriter>(
      "trackgen::io::GateFileWriter", path, gate_format, config.num_envs, config.max_gates,
      detail::dataset_specs<GateSequence<Kokkos::HostSpace>>(), attributes_of(config, backend));
}

GateFileWriter::~GateFileWriter() = default;

void GateFileWriter::append(const GateSequence<Kokkos::HostSpace>& chunk, std::span<const std::int32_t> seeds,
                            int envs) {
  const int n = impl_->check_chunk(chunk.num_envs(), envs, chunk.max_gates(), seeds.size(), "max_gates");
  impl_->append(n, field_data(chunk, seeds));
}

int GateFileWriter::envs_written() const { return impl_->written(); }
int GateFileWriter::num_envs() const { return impl_->num_envs(); }
void GateFileWriter::close() { impl_->close(); }

TrackFile read_tracks(const std::string& path) {
  QuietErrors quiet;
  const Where w{"trackgen::io::read_tracks", path};
  Handle file = open_batch_file(w, track_format);
  TrackFile f;
  f.attributes = read_attributes(w, file);
  f.config = parse_config<TrackGenConfig>(w, f.attributes.config_json);
  f.track = read_batch<Track<Kokkos::HostSpace>>(w, file, "center", f.seeds);
  return f;
}

GateFile read_gates(const std::string& path) {
  QuietErrors quiet;
  const Where w{"trackgen::io::read_gates", path};
  Handle file = open_batch_file(w, gate_format);
  GateFile f;
  f.attributes = read_attributes(w, file);
  f.config = parse_config<GateGenConfig>(w, f.attributes.config_json);
  f.gates = read_batch<GateSequence<Kokkos::HostSpace>>(w, file, "position", f.seeds);
  return f;
}

}  // namespace trackgen::io
