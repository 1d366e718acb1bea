#include <stdexcept>
#include <vector>

namespace linalg {

// A dense row-major matrix of doubles.
class Matrix {
public:
    Matrix(std::size_t rows, std::size_t cols) : rows_(rows), cols_(cols), data_(rows * cols) {}

    double &at(std::size_t row, std::size_t col) {
        if (row >= rows_ || col >= cols_) throw std::out_of_range("matrix index");
        return data_[row * cols_ + col];
    }

    Matrix multiply(const Matrix &other) const;

private:
    std::size_t rows_, cols_;
    std::vector<double> data_;
};

Matrix Matrix::multiply(const Matrix &other) const {
    if (cols_ != other.rows_) throw std::invalid_argument("shape mismatch");
    Matrix result(rows_, other.cols_);
    for (std::size_t i = 0; i < rows_; ++i)
        for (std::size_t k = 0; k < cols_; ++k)
            for (std::size_t j = 0; j < other.cols_; ++j)
                result.data_[i * other.cols_ + j] += data_[i * cols_ + k] * other.data_[k * other.cols_ + j];
    return result;
}

double trace(const Matrix &m, std::size_t n);

}  // namespace linalg
