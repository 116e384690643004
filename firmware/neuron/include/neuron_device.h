// The Neuron device library for firmware programs on the neuron-gpsimd management core
// (docs/neuron-programs.md): the allocators, the stack switch, the data transfers, and xmem.
#ifndef NPUSIM_NEURON_DEVICE_H
#define NPUSIM_NEURON_DEVICE_H

#include "allocator.h"
#include "data_transfer.h"
#include "stack_switch.h"
#include "xmem.h"

#endif  // NPUSIM_NEURON_DEVICE_H
