def negate(a):
    return -a
