#include "arrays.hpp"

namespace trackgen::python {
void bind_course(nb::module_&) {}
}  // namespace trackgen::python
