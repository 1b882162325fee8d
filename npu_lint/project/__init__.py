"""The project index: modules, definitions, re-exports and the call graph of a code base, built without
importing it (see :class:`npu_lint.project.index.ProjectIndex`)."""
from npu_lint.project.index import ProjectIndex, Site
from npu_lint.project.modules import NoPackage, find_package

__all__ = ["NoPackage", "ProjectIndex", "Site", "find_package"]
