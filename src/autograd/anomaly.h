// The running backward's state that nodes consult (which edges it needs), and anomaly mode's traces (PyTorch's AnomalyMetadata): each node recorded while anomaly mode is on
// keeps its forward trace, and a node created by another node's backward (double backward) also
// keeps the traces of the nodes that induced it; backward warns them when a node fails.
#pragma once

#include <string>

#include "ctorch/autograd_node.h"

namespace ctorch::autograd::detail {

/// The node whose backward runs on this thread (null outside backward).
const Node* current_backward_node();
/// Makes `node` the running one; returns the previous.
const Node* set_current_backward_node(const Node* node);
/// Whether the backward running on this thread needs the gradient sent along `edge` (true outside one).
bool edge_needed(const Edge& edge);
/// Keeps `trace` (which starts "Traceback of forward call that caused the error:") for `node`, and
/// the traces of the backward nodes that created it.
void record_anomaly_trace(Node& node, std::string trace);
/// Warns "Error detected in <node>. <trace>", then one warning per inducing node.
void warn_anomaly_traces(const Node& node);

}  // namespace ctorch::autograd::detail
