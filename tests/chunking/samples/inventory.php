<?php

namespace App\Services\Inventory;

use App\Models\Product;
use App\Models\Warehouse;
use Illuminate\Support\Collection;

/**
 * Keeps stock levels of products across warehouses.
 */
class StockLedger
{
    private array $levels = [];

    public function __construct(private Warehouse $warehouse)
    {
    }

    /**
     * Adds received units of a product to the ledger.
     */
    public function receive(Product $product, int $units): void
    {
        if ($units <= 0) {
            throw new \InvalidArgumentException("units must be positive, got {$units}");
        }
        $this->levels[$product->sku] = ($this->levels[$product->sku] ?? 0) + $units;
    }

    public function available(Product $product): int
    {
        return $this->levels[$product->sku] ?? 0;
    }

    public function lowStock(int $threshold): Collection
    {
        return collect($this->levels)
            ->filter(fn (int $units) => $units < $threshold)
            ->keys();
    }
}

interface ReorderPolicy
{
    public function shouldReorder(Product $product, int $available): bool;
}

function format_units(int $units): string
{
    return number_format($units) . ' units';
}
