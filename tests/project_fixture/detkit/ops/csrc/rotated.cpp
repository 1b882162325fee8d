#include <torch/extension.h>

at::Tensor nms_rotated_cuda(const at::Tensor& boxes, const at::Tensor& scores, double thr);

TORCH_LIBRARY(detkit, m) {
  m.def("nms_rotated(Tensor boxes, Tensor scores, float thr) -> Tensor");
}

TORCH_LIBRARY_IMPL(detkit, CUDA, m) {
  m.impl("nms_rotated", nms_rotated_cuda);
}
