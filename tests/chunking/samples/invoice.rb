require "bigdecimal"
require_relative "tax"

module Billing
  # An invoice with line items and a tax rule.
  class Invoice
    attr_reader :lines

    def initialize(customer, tax: Tax::STANDARD)
      @customer = customer
      @tax = tax
      @lines = []
    end

    def add_line(description, amount)
      raise ArgumentError, "amount must be positive" unless amount.positive?

      @lines << { description: description, amount: BigDecimal(amount.to_s) }
      self
    end

    def total
      subtotal = @lines.sum { |line| line[:amount] }
      subtotal + @tax.apply(subtotal)
    end

    def self.draft(customer)
      new(customer).tap { |invoice| invoice.add_line("Draft", 0.01) }
    end
  end
end
