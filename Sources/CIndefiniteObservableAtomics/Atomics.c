// The functions are `static inline` in the header; a C target needs one source file to build.
#include "CIndefiniteObservableAtomics.h"
