// The metrics layer: per-env track-quality metrics on the device (TrackMetrics)
// and batch statistics (BatchMetrics, batch_stats).
#pragma once

#include <trackgen/metrics/batch_stats.hpp>
#include <trackgen/metrics/track_metrics.hpp>
