# Tabs and spaces mixed so that the indentation depends on the tab width.
# RUN: not dslc %s --emit=ast 2>&1 | FileCheck --strict-whitespace %s

def f():
	x = 1
# CHECK:{{.*}}error-tabs-spaces.py:[[@LINE+3]]:1: error: inconsistent use of tabs and spaces in indentation
# CHECK-NEXT:{{^}}        y = 2{{$}}
# CHECK-NEXT:{{^}}^~~~~~~~{{$}}
        y = 2

# Consistent use of tabs (one tab per level) is fine.
def g():
	if x:
		return 1
	return 2
# CHECK-NOT: error:
# CHECK: 1 error generated.
