// Specs of the built-in generators, one per generator source file.
#pragma once

#include <trackgen/generators/generator.hpp>

namespace trackgen::detail {

template <class Space>
GeneratorSpec<Space> bezier_spec();
template <class Space>
GeneratorSpec<Space> polar_spec();
template <class Space>
GeneratorSpec<Space> hull_spec();
template <class Space>
GeneratorSpec<Space> voronoi_spec();
template <class Space>
GeneratorSpec<Space> checkpoint_spec();
template <class Space>
GeneratorSpec<Space> repulsive_spec();

}  // namespace trackgen::detail
