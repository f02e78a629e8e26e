#include "row_list_model.h"
