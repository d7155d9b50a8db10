// JSON for ridgeline's value types, and the preset catalogue in data/: one include for all of
// it. Each part is its own header:
//   json_node.hpp          the cursor every reader uses (file + JSON pointer in every error)
//   hardware_json.hpp      hardware presets
//   config_reader.hpp      reading a config.json's keys with a family's defaults
//   family_*.hpp           one reader per config.json family, listed in family_registry.hpp
//   model_json.hpp         models from a config.json or ridgeline's own form
//   catalogue.hpp          files, data/, preset names and paths
//   checkpoint_formats.hpp the formats a checkpoint ships in
//   draft_head_json.hpp    EAGLE-3 draft heads, and speculative drafts by name or file
//   measurements_json.hpp  measured decode speeds
//   efficiency_json.hpp    engine-and-device efficiency presets
#pragma once

#include "catalogue.hpp"
#include "checkpoint_formats.hpp"
#include "efficiency_json.hpp"
#include "config_reader.hpp"
#include "draft_head_json.hpp"
#include "family_registry.hpp"
#include "hardware_json.hpp"
#include "json_node.hpp"
#include "measurements_json.hpp"
#include "model_json.hpp"
