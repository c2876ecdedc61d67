// Intentionally empty: SwiftPM builds a C module from at least one source file, and this
// module's whole content is the header it exports (include/CHearthEpoll.h).
#include "CHearthEpoll.h"
