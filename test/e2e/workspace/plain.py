# An ordinary Python file: no Triton, so the extension does no work here.
def mean(xs):
    return sum(xs) / len(xs)
