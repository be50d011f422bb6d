// Package score is the ground truth of an injected incident and the
// scoring of a diagnosis against it, in the measures of the NIKA
// benchmark of network incidents (arXiv 2512.16381): detection (is_anomaly
// right), localization (F1 of faulty_devices) and root cause (F1 of
// root_cause_name).
//
// The truth of a fault of the lab's catalog comes from the topology
// (FaultDevices); the answer is the three NIKA fields of a report, so any
// diagnoser (the controller's engine, a model) is scored alike. The fault
// suites print their results with WriteTable.
package score
