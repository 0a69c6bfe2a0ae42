// The loopback transport: a context that can only reach itself. Used outside
// the simulator when no network transport is built in (teams of one).
#pragma once

#include <memory>

#include "lib/transport.h"

namespace ucc::self {

std::unique_ptr<Transport> make_transport();

}  // namespace ucc::self
