#ifndef PIPELINE_CYAML_SHIM_H
#define PIPELINE_CYAML_SHIM_H
#include <yaml.h>
#endif
