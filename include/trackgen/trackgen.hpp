// TrackGen's public API in one header: the whole library, as the `trackgen`
// target (TrackGen::trackgen) links it. See docs/design.md for the layers.
#pragma once

#include <trackgen/version.hpp>

#include <trackgen/core/config.hpp>
#include <trackgen/core/config_schema.hpp>
#include <trackgen/core/errors.hpp>
#include <trackgen/core/fields.hpp>
#include <trackgen/core/gate_config.hpp>
#include <trackgen/core/gate_sequence.hpp>
#include <trackgen/core/logging.hpp>
#include <trackgen/core/seeds.hpp>
#include <trackgen/core/spaces.hpp>
#include <trackgen/core/track.hpp>
#include <trackgen/generators/gate_source.hpp>
#include <trackgen/generators/generator.hpp>
#include <trackgen/metrics/metrics.hpp>
#include <trackgen/pipeline/chunked.hpp>
#include <trackgen/pipeline/gate_generator.hpp>
#include <trackgen/pipeline/memory.hpp>
#include <trackgen/pipeline/stages.hpp>
#include <trackgen/pipeline/track_generator.hpp>
#include <trackgen/runtime.hpp>
