// The bound producers (TrackGenerator, GateGenerator): a producer on the default
// execution space reading its base seeds from an [E] int32 View the wrapper owns
// (filled from an integer or an array, rewritten by set_seeds), plus an [E] mask
// View for masked generation.
#pragma once

#include "arrays.hpp"
#include "runtime.hpp"

#include <trackgen/core/errors.hpp>
#include <trackgen/core/seeds.hpp>
#include <trackgen/exec/graph_runner.hpp>

#include <memory>

namespace trackgen::python {

template <class Producer, class Config>
class PyProducer : public Holder {
 public:
  using IntView = typename Producer::IntView;

  /// A producer of `config` (validated by `Config`'s rules) with base seeds
  /// k + e; generates that batch. `api` names it in messages.
  PyProducer(const char* api, const Config& config, std::int32_t k) : api_(api) {
    const DeviceLock lock;
    allocate(config);
    write_seeds(k);
    producer_ = std::make_unique<Producer>(space_, config, seeds_);
  }

  /// A producer of `config` with the per-env base seeds `seeds`; generates that batch.
  PyProducer(const char* api, const Config& config, const HostInts& seeds) : api_(api) {
    const DeviceLock lock;
    allocate(config);
    check_extent(api_, "seed", seeds.shape(0), seeds_.extent(0));
    copy_in(space_, seeds_, seeds);
    producer_ = std::make_unique<Producer>(space_, config, seeds_);
  }

  ~PyProducer() override {
    const DeviceLock lock;
    release();
  }

  void release() noexcept override {
    producer_.reset();
    seeds_ = IntView();
    mask_ = IntView();
  }

  /// seeds[e] = k + e (int32 wrap-around), as the command-line tool's --seed.
  void set_seeds(std::int32_t k) {
    check_alive(api_);
    const DeviceLock lock;
    write_seeds(k);
  }

  void set_seeds_array(const HostInts& seeds) {
    check_alive(api_);
    check_extent(api_, "seed", seeds.shape(0), seeds_.extent(0));
    const DeviceLock lock;
    copy_in(space_, seeds_, seeds);
  }

  void generate() {
    check_alive(api_);
    const DeviceLock lock;
    producer_->generate();
    space_.fence();
  }

  void generate_masked(const HostInts& mask, bool advance) {
    check_alive(api_);
    check_extent(api_, "mask", mask.shape(0), mask_.extent(0));
    const DeviceLock lock;
    copy_in(space_, mask_, mask);
    producer_->generate(mask_, advance);
    space_.fence();
  }

  void set_eager(bool eager) {
    check_alive(api_);
    producer_->set_policy(eager ? Policy::eager : Policy::automatic);
  }
  bool eager() const {
    check_alive(api_);
    return producer_->policy() == Policy::eager;
  }

  /// The producer (check_alive first).
  const Producer& producer() const {
    check_alive(api_);
    return *producer_;
  }
  const IntView& seeds() const {
    check_alive(api_);
    return seeds_;
  }
  const IntView& epoch() const {
    check_alive(api_);
    return producer_->seeds().epoch();
  }

 private:
  void allocate(const Config& config) {
    config.validate();  // the extent checks below need a valid num_envs
    const auto e = static_cast<std::size_t>(config.num_envs);
    seeds_ = IntView(Kokkos::view_alloc(space_, "TrackGen::python::seeds"), e);
    mask_ = IntView(Kokkos::view_alloc(space_, "TrackGen::python::mask"), e);
  }

  void write_seeds(std::int32_t k) {
    check_arange_seeds(api_, k, static_cast<int>(seeds_.extent(0)));
    auto host = Kokkos::create_mirror_view(seeds_);
    for (std::size_t e = 0; e < host.extent(0); ++e) {
      host(e) = expand_seed(k, static_cast<std::int32_t>(e), SeedExpansion::arange);
    }
    Kokkos::deep_copy(space_, seeds_, host);
    space_.fence();
  }

  const char* api_;
  Space space_ = initialized_space();
  IntView seeds_;
  IntView mask_;
  std::unique_ptr<Producer> producer_;
};

/// Binds the methods every producer wrapper has (the Python layer calls them).
template <class Py, class Cls>
void bind_producer_methods(Cls& cls) {
  cls.def("set_seeds", &Py::set_seeds, nb::arg("k"), nb::call_guard<nb::gil_scoped_release>())
      .def("set_seeds_array", &Py::set_seeds_array, nb::arg("seeds"), nb::call_guard<nb::gil_scoped_release>())
      .def("generate", &Py::generate, nb::call_guard<nb::gil_scoped_release>())
      .def("generate_masked", &Py::generate_masked, nb::arg("mask"), nb::arg("advance"),
           nb::call_guard<nb::gil_scoped_release>())
      .def_prop_rw("eager", &Py::eager, &Py::set_eager)
      .def_prop_ro("seeds", [](nb::handle s) { return export_view(nb::cast<const Py&>(s).seeds(), s); })
      .def_prop_ro("epoch", [](nb::handle s) { return export_view(nb::cast<const Py&>(s).epoch(), s); });
}

}  // namespace trackgen::python
