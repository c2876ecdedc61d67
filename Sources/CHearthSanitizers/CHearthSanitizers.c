// Header-only module (the annotations are static inline in include/CHearthSanitizers.h);
// SwiftPM wants a source file in a C target.
