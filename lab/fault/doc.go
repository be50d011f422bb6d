// Package fault is the lab's fault registry: it binds each name of the
// fault catalog (lab/topology's Catalog, the single source of the names,
// their targets and parameters) once to how each backend of the lab
// applies and clears it.
//
// A backend (the simulator, lab/sim; the real lab of FRR in namespaces,
// lab/real) creates its Backend once, typed by its own lab, and binds
// every catalog name into it when its package is initialised: Register
// with an Impl (Apply, Clear, and whether the fault is a configuration
// change), or Unsupported with the reason it does not build that name.
// This is the model of database/sql's drivers and CoreDNS's plugins: a
// name is bound to its behaviour in one place, and this package imports
// no backend.
//
// Lookup refuses a name outside the catalog with an *UnknownError, which
// lists the catalog's names, and a name the backend does not build with an
// *UnsupportedError, which says why and lists those it builds. Status and
// Missing let a test check that every backend binds every catalog name.
package fault
