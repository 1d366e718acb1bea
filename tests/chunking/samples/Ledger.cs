using System;
using System.Collections.Generic;
using System.Linq;

namespace Accounts.Ledger
{
    /// <summary>Double-entry ledger of postings.</summary>
    public class Ledger
    {
        private readonly List<Posting> postings = new();

        public decimal Balance(string account)
        {
            return postings.Where(p => p.Account == account).Sum(p => p.Amount);
        }

        public void Transfer(string from, string to, decimal amount)
        {
            if (amount <= 0)
            {
                throw new ArgumentOutOfRangeException(nameof(amount), "amount must be positive");
            }
            postings.Add(new Posting(from, -amount));
            postings.Add(new Posting(to, amount));
        }

        public int Count => postings.Count;
    }

    public record Posting(string Account, decimal Amount);

    public interface IAuditLog
    {
        void Record(string message);
    }
}
