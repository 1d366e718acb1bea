package org.example.library;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/** A lending library that tracks loans and due dates. */
public class Library {
    private final List<Loan> loans = new ArrayList<>();
    private final int loanDays;

    public Library(int loanDays) {
        this.loanDays = loanDays;
    }

    /** Lends a book to a member, returning the loan. */
    public Loan lend(Book book, Member member, LocalDate today) {
        if (isLent(book)) {
            throw new IllegalStateException("already lent: " + book.isbn());
        }
        Loan loan = new Loan(book, member, today.plusDays(loanDays));
        loans.add(loan);
        return loan;
    }

    public boolean isLent(Book book) {
        return loans.stream().anyMatch(loan -> loan.book().equals(book));
    }

    public List<Loan> overdue(LocalDate today) {
        return loans.stream().filter(loan -> loan.due().isBefore(today)).toList();
    }

    public record Loan(Book book, Member member, LocalDate due) {}
}

interface Catalogue {
    Book find(String isbn);
}
