// The runtime layer's public API in one header: the simulation-side utilities
// and the Course.
#pragma once

#include <trackgen/runtime/checkpoints.hpp>
#include <trackgen/runtime/collision.hpp>
#include <trackgen/runtime/course.hpp>
#include <trackgen/runtime/course_config.hpp>
#include <trackgen/runtime/course_line.hpp>
#include <trackgen/runtime/disc_checker.hpp>
#include <trackgen/runtime/frame_checker.hpp>
#include <trackgen/runtime/geometry.hpp>
#include <trackgen/runtime/grid.hpp>
#include <trackgen/runtime/heightfield.hpp>
#include <trackgen/runtime/localizer.hpp>
#include <trackgen/runtime/progress.hpp>
#include <trackgen/runtime/props.hpp>
