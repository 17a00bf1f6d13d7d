// ctorch::version(): the library's own CTORCH_VERSION, for comparing with the headers' macro.
#include "ctorch/version.h"

namespace ctorch::inline api {

const char* version() noexcept { return CTORCH_VERSION; }

}  // namespace ctorch::api
