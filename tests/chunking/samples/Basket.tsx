import React, { useState } from "react";
import { LineItem } from "./cart";

interface BasketProps {
  items: LineItem[];
  onRemove: (sku: string) => void;
}

export function Basket({ items, onRemove }: BasketProps) {
  const [open, setOpen] = useState(false);
  return (
    <section className="basket">
      <button onClick={() => setOpen(!open)}>{open ? "Hide" : "Show"} basket</button>
      {open && (
        <ul>
          {items.map((item) => (
            <li key={item.sku}>
              {item.name} x {item.quantity}
              <button onClick={() => onRemove(item.sku)}>Remove</button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export const EmptyBasket = () => <p className="basket-empty">Your basket is empty.</p>;
